package entra

import (
	_ "embed" // the starter configuration
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

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
// points the example at it: its endpoints, its demo app, and a sign-in
// without a secret: workload identity federation, with a federated token
// file (as AKS mounts it) of a demo cluster's issuer, which the demo
// app's federated credential trusts.
func startDemo(out io.Writer, dir string) ([]string, func(), error) {
	iss, err := entrafake.NewIssuer(entrafake.DemoIssuer)
	if err != nil {
		return nil, nil, err
	}
	tenant := entrafake.Demo()
	tenant.Trust(iss)
	tok := iss.Token(entrafake.DemoServiceAccount, entrafake.DefaultFederatedAudience, 24*time.Hour)
	if err := os.WriteFile(filepath.Join(dir, "entra", "demo-federated-token"), []byte(tok), 0o600); err != nil {
		return nil, nil, err
	}
	s := entrafake.Start(tenant, entrafake.Options{})
	fmt.Fprintf(out, "Fake Entra ID tenant (Microsoft Graph) at %s.\n", s.URL)
	fmt.Fprintln(out, "Signing in without a secret: workload identity federation, with a federated token file as AKS mounts it (auth: workloadIdentity).")
	return []string{
		"tenantId: contoso.onmicrosoft.com", fmt.Sprintf("tenantId: %s\n      loginURL: %s\n      graphURL: %s", entrafake.DemoTenantID, s.URL, s.URL),
		"clientId: 00000000-0000-0000-0000-000000000000", "clientId: " + entrafake.DemoClientID,
		"clientSecret: {env: ENTRA_CLIENT_SECRET}", "auth: workloadIdentity\n      federatedTokenFile: demo-federated-token",
	}, s.Close, nil
}
