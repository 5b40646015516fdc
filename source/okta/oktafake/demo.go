package oktafake

import (
	"fmt"
	"io"

	"github.com/orgsync/orgsync/source"
)

// StartDemo starts a fake Okta organization for the okta example and
// points the example at it, with its demo API token.
func StartDemo(out io.Writer, dir string) ([]string, func(), error) {
	if err := source.WriteDemoSecret(dir, "okta", DemoToken); err != nil {
		return nil, nil, err
	}
	s := Start(Demo(), Options{})
	fmt.Fprintf(out, "Fake Okta organization at %s.\n", s.URL)
	return []string{
		"orgURL: https://example.okta.com", "orgURL: " + s.URL,
		"apiToken: {env: OKTA_API_TOKEN}", "apiToken: {file: demo-secret}",
	}, s.Close, nil
}
