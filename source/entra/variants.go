package entra

import (
	_ "embed" // the starter configuration
	"fmt"
	"io"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/entra/entrafake"
)

// starter is the sources and mapping part of init's starter configuration.
//
//go:embed starter.yaml
var starter string

// Variants are the kind as orgsync init and orgsync demo offer it: the
// starter configuration and the entra example, read from a fake tenant.
func Variants() []source.Variant {
	return []source.Variant{{Name: "entra", Starter: starter, Example: source.Example{Dir: "entra", Start: startDemo}}}
}

// startDemo starts a fake Entra ID tenant for the entra example and
// points the example at it: its endpoints, its demo app and its demo
// secret (written beside the example).
func startDemo(out io.Writer, dir string) ([]string, func(), error) {
	if err := source.WriteDemoSecret(dir, "entra", entrafake.DemoSecret); err != nil {
		return nil, nil, err
	}
	s := entrafake.Start(entrafake.Demo(), entrafake.Options{})
	fmt.Fprintf(out, "Fake Entra ID tenant (Microsoft Graph) at %s.\n", s.URL)
	return []string{
		"tenantId: contoso.onmicrosoft.com", fmt.Sprintf("tenantId: %s\n      loginURL: %s\n      graphURL: %s", entrafake.DemoTenantID, s.URL, s.URL),
		"clientId: 00000000-0000-0000-0000-000000000000", "clientId: " + entrafake.DemoClientID,
		"clientSecret: {env: ENTRA_CLIENT_SECRET}", "clientSecret: {file: demo-secret}",
	}, s.Close, nil
}
