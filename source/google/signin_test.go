package google_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/util/outbound"
	"github.com/orgsync/orgsync/internal/util/outbound/outboundtest"
	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source/google"
	"github.com/orgsync/orgsync/source/google/googlefake"
	"github.com/orgsync/orgsync/source/internal/sourcetest"
)

// The tests in this file hold the sign-ins to what Google documents
// (issue: the cloud sign-ins as the clouds document them) and to the
// outbound transport's promises: no credential follows a redirect, the
// metadata server is never reached through a proxy.

// TestMetadataServerNeverProxied: with a proxy for everything (the
// fake's metadata server refuses a request a proxy relayed, as Google's
// does), the metadata server is asked directly and IAM Credentials, the
// token endpoint and the Directory API through the proxy.
func TestMetadataServerNeverProxied(t *testing.T) {
	t.Parallel()
	d := keyless(t, google.AuthSignJwt, googlefake.Options{}, selfSigner)
	metadata := outboundtest.Front(t, d.s.URL, d.s.URL, 0, func(*http.Request) bool { return false })
	d.cfg.MetadataURL = metadata.URL
	proxy := outboundtest.NewProxy(t)
	s := open(t, d.cfg, rules)
	s.Retry.Proxy = proxy.Func()
	res, err := s.Read(context.Background())
	if err != nil {
		t.Fatalf("metadata server behind a proxy: %v", err)
	}
	checkGroups(t, sourcetest.GroupsByEmail(res.Users), demoGroups)
	if n, m := proxy.Relayed(strings.TrimPrefix(d.s.URL, "http://")), proxy.Relayed(strings.TrimPrefix(metadata.URL, "http://")); n == 0 || m != 0 {
		t.Errorf("the proxy relayed %d requests to Google's APIs and %d to the metadata server, want some and none", n, m)
	}
}

// federated returns the demo with an external account impersonating the
// demo's service account, written with audience aud for its token, and
// the configuration's path.
func federated(t *testing.T, aud func(googlefake.Provider) string) (*demo, string) {
	iss, _ := googlefake.NewIssuer(googlefake.DemoIssuer)
	var p googlefake.Provider
	d := keyless(t, google.AuthSignJwt, googlefake.Options{MetadataAccount: "nobody@orgsync-fake.iam.gserviceaccount.com"}, func(dom *googlefake.Domain) {
		p = dom.Federate(googlefake.DemoProvider, iss)
		dom.AllowTokenCreator(account, p.Principal(googlefake.DemoWorkload))
		selfSigner(dom)
	})
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	sourcetest.WriteFile(t, tokenFile, iss.Token(googlefake.DemoWorkload, aud(p), time.Hour))
	conf := filepath.Join(dir, "external-account.json")
	sourcetest.WriteFile(t, conf, string(d.s.ExternalAccount(p, map[string]any{"file": tokenFile}, account)))
	d.cfg.MetadataURL = "http://127.0.0.1:1" // never asked
	d.cfg.Credentials = secret.Ref{File: conf}
	return d, conf
}

// TestSignJwtAdviceNamesTheCaller: when the external account impersonates
// a service account, that account calls signJwt: a refusal says to grant
// it the role, not the metadata server's account.
func TestSignJwtAdviceNamesTheCaller(t *testing.T) {
	t.Parallel()
	d, _ := federated(t, googlefake.Provider.TokenAudience)
	d.cfg.ServiceAccount = "delegate@orgsync-fake.iam.gserviceaccount.com"
	_, err := read(t, d.cfg, rules)
	if err == nil || !strings.Contains(err.Error(), "grant the service account "+account+" the Service Account Token Creator role on "+d.cfg.ServiceAccount) ||
		!strings.Contains(err.Error(), "--member=serviceAccount:"+account) || strings.Contains(err.Error(), "metadata server") {
		t.Errorf("signJwt refused to the impersonated account: %v", err)
	}
}

// TestSTSRefusalNamesTheSTS: the Security Token Service refusing the
// external account's token, inside signJwt's sign-in, is named by its
// address.
func TestSTSRefusalNamesTheSTS(t *testing.T) {
	t.Parallel()
	d, _ := federated(t, func(googlefake.Provider) string { return "api://AzureADTokenExchange" })
	_, err := read(t, d.cfg, rules)
	if err == nil || !strings.Contains(err.Error(), "the Security Token Service "+d.s.URL+googlefake.STSPath) {
		t.Errorf("STS refusal: %v", err)
	}
}

// TestAdminRoleWithTheVMsAccessScopes: on Compute Engine the metadata
// server gives the VM's access scopes whatever is asked for; without the
// directory scopes, the advice says how to give them to the VM.
func TestAdminRoleWithTheVMsAccessScopes(t *testing.T) {
	t.Parallel()
	d := keyless(t, google.AuthAdminRole, googlefake.Options{MetadataScopes: []string{google.CloudPlatformScope}},
		func(dom *googlefake.Domain) { dom.AdminAccounts = []string{account} })
	d.cfg.Subject, d.cfg.Customer = "", googlefake.DemoCustomer
	_, err := read(t, d.cfg, rules)
	if err == nil || !strings.Contains(err.Error(), "VM's access scopes") || !strings.Contains(err.Error(), "gcloud compute instances set-service-account") {
		t.Errorf("a VM without the directory scopes: %v", err)
	}
}

// TestRedirectsCarryNoCredentials: every Google endpoint that redirects
// to another host (the token endpoint with the key file's assertion, the
// metadata server, IAM Credentials' signJwt and generateAccessToken with
// a bearer token, the Security Token Service with the workload's token,
// the Directory API) is refused, naming both hosts, and not a byte
// reaches the other host.
func TestRedirectsCarryNoCredentials(t *testing.T) {
	t.Parallel()
	keyFile := func(t *testing.T) *demo { return startDemo(t, googlefake.Options{}, nil) }
	metadata := func(t *testing.T) *demo { return keyless(t, google.AuthSignJwt, googlefake.Options{}, selfSigner) }
	external := func(t *testing.T) *demo { d, _ := federated(t, googlefake.Provider.TokenAudience); return d }
	flows := map[string]struct {
		at    string
		start func(t *testing.T) *demo
	}{
		"token endpoint":         {"/token", keyFile},
		"Directory API":          {"/admin/directory/", keyFile},
		"metadata server":        {googlefake.MetadataPath, metadata},
		"signJwt":                {":signJwt", metadata},
		"Security Token Service": {googlefake.STSPath, external},
		"generateAccessToken":    {":generateAccessToken", external},
	}
	for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		for name, f := range flows {
			d := f.start(t)
			other := outboundtest.NewCatcher(t)
			front := outboundtest.Front(t, d.s.URL, other.URL, status, func(r *http.Request) bool { return strings.Contains(r.URL.Path, f.at) })
			_, err := read(t, via(t, d, front.URL), rules)
			if refusal := (&outbound.RedirectError{From: front.URL, To: other.URL, Status: status}).Error(); err == nil || !strings.Contains(err.Error(), refusal) {
				t.Errorf("%d, %s: %v, want the redirect refused", status, name, err)
			}
			other.Check(t, fmt.Sprintf("%d, %s", status, name), "eyJ", "BEGIN PRIVATE KEY")
		}
	}
}

// via returns d's configuration with every Google endpoint at front: the
// Directory API, the token endpoint, IAM Credentials, the metadata server
// (unless d reads an external account), and in an external account's
// configuration the Security Token Service and the impersonation URL.
func via(t *testing.T, d *demo, front string) google.Config {
	c := d.cfg
	c.APIURL, c.TokenURL, c.IAMURL = front, front+"/token", front
	if c.MetadataURL == d.s.URL {
		c.MetadataURL = front
	}
	if c.Credentials.File == "" || c.Auth == "" {
		return c
	}
	b, err := os.ReadFile(c.Credentials.File)
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(t.TempDir(), "external-account.json")
	sourcetest.WriteFile(t, conf, strings.ReplaceAll(string(b), d.s.URL, front))
	c.Credentials = secret.Ref{File: conf}
	return c
}
