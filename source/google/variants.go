package google

import (
	_ "embed" // the starter configuration
	"fmt"
	"io"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/google/googlefake"
)

// starter is the sources and mapping part of init's starter configuration.
//
//go:embed starter.yaml
var starter string

// Variants are the kind as orgsync init and orgsync demo offer it: the
// starter configuration and the google example, read from a fake domain.
func Variants() []source.Variant {
	return []source.Variant{{Name: "google", Starter: starter, Example: source.Example{Dir: "google", Start: startDemo}}}
}

// startDemo starts a fake Google Workspace domain for the google example
// and points the example at it: a service account's key file (of a key
// made for the run, delegated the read-only scopes) and the Directory
// API's address.
func startDemo(out io.Writer, dir string) ([]string, func(), error) {
	key, err := googlefake.NewKey("orgsync-demo@orgsync-fake.iam.gserviceaccount.com", "100000000000000000042")
	if err != nil {
		return nil, nil, err
	}
	s := googlefake.Start(googlefake.Demo(key.Account), googlefake.Options{})
	if err := source.WriteDemoSecret(dir, "google", string(key.File(s.TokenURL()))); err != nil {
		s.Close()
		return nil, nil, err
	}
	fmt.Fprintf(out, "Fake Google Workspace domain (Admin SDK Directory API) at %s.\n", s.URL)
	return []string{
		"credentials: {file: /etc/orgsync/secrets/google-service-account.json}", "credentials: {file: demo-secret}",
		"subject: admin@example.com", fmt.Sprintf("subject: %s\n      apiURL: %s", googlefake.DemoSubject, s.URL),
	}, s.Close, nil
}
