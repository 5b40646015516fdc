package okta

import (
	_ "embed" // the starter configuration
	"fmt"
	"io"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/okta/oktafake"
)

// starter is the sources and mapping part of init's starter configuration.
//
//go:embed starter.yaml
var starter string

// Variants are the kind as orgsync init and orgsync demo offer it: the
// starter configuration and the okta example, read from a fake
// organization.
func Variants() []source.Variant {
	return []source.Variant{{Name: "okta", Starter: starter, Example: source.Example{Dir: "okta", Start: startDemo}}}
}

// startDemo starts a fake Okta organization for the okta example and
// points the example at it, with its demo API token.
func startDemo(out io.Writer, dir string) ([]string, func(), error) {
	if err := source.WriteDemoSecret(dir, "okta", oktafake.DemoToken); err != nil {
		return nil, nil, err
	}
	s := oktafake.Start(oktafake.Demo(), oktafake.Options{})
	fmt.Fprintf(out, "Fake Okta organization at %s.\n", s.URL)
	return []string{
		"orgURL: https://example.okta.com", "orgURL: " + s.URL,
		"apiToken: {env: OKTA_API_TOKEN}", "apiToken: {file: demo-secret}",
	}, s.Close, nil
}
