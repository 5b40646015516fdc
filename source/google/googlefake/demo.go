package googlefake

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/orgsync/orgsync/source"
)

// StartDemo starts a fake Google Workspace domain for the google example
// and points the example at it, signing in without a key file: a demo
// cluster's token (a file) exchanged through workload identity
// federation, the service account delegated the read-only scopes
// impersonated, and the delegation signed by IAM Credentials (auth:
// signJwt).
func StartDemo(out io.Writer, dir string) ([]string, func(), error) {
	const account = "orgsync-demo@orgsync-fake.iam.gserviceaccount.com"
	key, err := NewKey(account, "100000000000000000042")
	if err != nil {
		return nil, nil, err
	}
	iss, err := NewIssuer(DemoIssuer)
	if err != nil {
		return nil, nil, err
	}
	dom := Demo(key.Account)
	p := dom.Federate(DemoProvider, iss)
	dom.AllowTokenCreator(account, p.Principal(DemoWorkload))
	dom.AllowTokenCreator(account, "serviceAccount:"+account)
	s := Start(dom, Options{})
	tokenFile := filepath.Join(dir, "google", "demo-cluster-token")
	err = os.WriteFile(tokenFile, []byte(iss.Token(DemoWorkload, p.TokenAudience(), 24*time.Hour)), 0o600)
	if err == nil {
		err = source.WriteDemoSecret(dir, "google", string(s.ExternalAccount(p, map[string]any{"file": tokenFile}, account)))
	}
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	fmt.Fprintf(out, "Fake Google Workspace domain (Admin SDK Directory API) at %s.\n", s.URL)
	fmt.Fprintln(out, "Signing in without a key file: workload identity federation, and the delegation signed by IAM Credentials (auth: signJwt).")
	return []string{
		"# credentials: {file: /etc/orgsync/google-external-account.json}", "credentials: {file: demo-secret}",
		"subject: admin@example.com", fmt.Sprintf("subject: %s\n      apiURL: %s\n      tokenURL: %s\n      iamURL: %s",
			DemoSubject, s.URL, s.TokenURL(), s.URL),
	}, s.Close, nil
}
