package google_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source/google"
	"github.com/orgsync/orgsync/source/google/googlefake"
	"github.com/orgsync/orgsync/source/internal/sourcetest"
)

// The demo's service account, which has domain-wide delegation.
const account = "orgsync@orgsync-fake.iam.gserviceaccount.com"

// keyless starts the demo domain with o (the metadata server is the
// service account's unless o names another) and returns a configuration
// of mode without credentials: the metadata server's.
func keyless(t *testing.T, mode string, o googlefake.Options, edit func(*googlefake.Domain)) *demo {
	t.Helper()
	if o.MetadataAccount == "" {
		o.MetadataAccount = account
	}
	d := startDemo(t, o, edit)
	d.cfg = google.Config{Auth: mode, Subject: googlefake.DemoSubject, APIURL: d.s.URL, TokenURL: d.s.TokenURL(), IAMURL: d.s.URL, MetadataURL: d.s.URL}
	return d
}

// selfSigner lets the service account sign as itself (the Service
// Account Token Creator role on itself), as signJwt needs.
func selfSigner(d *googlefake.Domain) { d.AllowTokenCreator(account, "serviceAccount:"+account) }

// TestSignJwtFromTheMetadataServer: on GKE with workload identity (or a
// VM), the metadata server's service account has IAM Credentials sign the
// delegation; no key file exists.
func TestSignJwtFromTheMetadataServer(t *testing.T) {
	t.Parallel()
	d := keyless(t, google.AuthSignJwt, googlefake.Options{}, selfSigner)
	res, err := read(t, d.cfg, rules)
	if err != nil {
		t.Fatal(err)
	}
	checkGroups(t, sourcetest.GroupsByEmail(res.Users), demoGroups)
}

// TestSignJwtRefusals: without the Token Creator role IAM Credentials
// refuses, and without delegation the token endpoint does; each says
// what to grant.
func TestSignJwtRefusals(t *testing.T) {
	t.Parallel()
	d := keyless(t, google.AuthSignJwt, googlefake.Options{}, nil)
	if _, err := read(t, d.cfg, rules); err == nil || !strings.Contains(err.Error(), "iam.serviceAccounts.signJwt") ||
		!strings.Contains(err.Error(), "Service Account Token Creator role on "+account) {
		t.Errorf("no token creator role: %v", err)
	}
	d = keyless(t, google.AuthSignJwt, googlefake.Options{}, func(dom *googlefake.Domain) { selfSigner(dom); dom.Delegation = nil })
	if _, err := read(t, d.cfg, rules); err == nil || !strings.Contains(err.Error(), "unauthorized_client") || !strings.Contains(err.Error(), "unique ID) of the service account") {
		t.Errorf("no delegation: %v", err)
	}
	d.cfg.MetadataURL = "http://127.0.0.1:1"
	if _, err := read(t, d.cfg, rules); err == nil || !strings.Contains(err.Error(), "no metadata server answers here") {
		t.Errorf("no metadata server: %v", err)
	}
}

// federation adds to dom a provider trusting iss, whose workload may
// impersonate the service account, and writes the external account's
// configuration reading the workload's token from a file.
func federation(t *testing.T, iss *googlefake.Issuer, impersonate bool) (func(*googlefake.Domain), func(*googlefake.Server) string) {
	var p googlefake.Provider
	edit := func(dom *googlefake.Domain) {
		p = dom.Federate(googlefake.DemoProvider, iss)
		dom.AllowTokenCreator(account, p.Principal(googlefake.DemoWorkload))
		selfSigner(dom)
	}
	write := func(s *googlefake.Server) string {
		dir := t.TempDir()
		tokenFile := filepath.Join(dir, "token")
		sourcetest.WriteFile(t, tokenFile, iss.Token(googlefake.DemoWorkload, p.TokenAudience(), time.Hour))
		sa := ""
		if impersonate {
			sa = account
		}
		conf := filepath.Join(dir, "external-account.json")
		sourcetest.WriteFile(t, conf, string(s.ExternalAccount(p, map[string]any{"file": tokenFile}, sa)))
		return conf
	}
	return edit, write
}

// TestSignJwtWithWorkloadIdentityFederation: a workload outside Google
// Cloud (any OIDC issuer: a Kubernetes cluster, GitHub, Azure) exchanges
// its token at the Security Token Service, impersonates the service
// account and has the delegation signed; or, without impersonation, the
// federated principal has it signed directly (serviceAccount names the
// account).
func TestSignJwtWithWorkloadIdentityFederation(t *testing.T) {
	t.Parallel()
	iss, _ := googlefake.NewIssuer(googlefake.DemoIssuer)
	for _, impersonate := range []bool{true, false} {
		edit, write := federation(t, iss, impersonate)
		d := keyless(t, google.AuthSignJwt, googlefake.Options{MetadataAccount: "nobody@orgsync-fake.iam.gserviceaccount.com"}, edit)
		d.cfg.MetadataURL = "http://127.0.0.1:1" // never asked
		d.cfg.Credentials = secret.Ref{File: write(d.s)}
		if _, err := read(t, d.cfg, rules); !impersonate && (err == nil || !strings.Contains(err.Error(), "set serviceAccount")) {
			t.Errorf("a federated principal without serviceAccount: %v", err)
		}
		if !impersonate {
			d.cfg.ServiceAccount = account
		}
		res, err := read(t, d.cfg, rules)
		if err != nil {
			t.Fatalf("impersonate %v: %v", impersonate, err)
		}
		checkGroups(t, sourcetest.GroupsByEmail(res.Users), demoGroups)
	}
}

// TestFederationRefusals: the Security Token Service refuses a token of
// another issuer or for another audience.
func TestFederationRefusals(t *testing.T) {
	t.Parallel()
	iss, _ := googlefake.NewIssuer(googlefake.DemoIssuer)
	edit, write := federation(t, iss, true)
	d := keyless(t, google.AuthSignJwt, googlefake.Options{}, edit)
	conf := write(d.s)
	other, _ := googlefake.NewIssuer("https://token.actions.githubusercontent.com")
	d.cfg.Credentials = secret.Ref{File: conf}
	for name, tok := range map[string]string{
		"another issuer":   other.Token(googlefake.DemoWorkload, "https://iam.googleapis.com/"+googlefake.DemoProvider, time.Hour),
		"another audience": iss.Token(googlefake.DemoWorkload, "api://AzureADTokenExchange", time.Hour),
	} {
		sourcetest.WriteFile(t, filepath.Join(filepath.Dir(conf), "token"), tok)
		if _, err := read(t, d.cfg, rules); err == nil || !strings.Contains(err.Error(), "invalid_grant") || !strings.Contains(err.Error(), "workload identity pool's provider") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestAdminRoleFromAURLSourcedCredential: an Azure VM's workload (its
// token from the instance metadata service's URL, JSON with
// access_token) impersonates a service account that holds an admin role
// and reads as itself, naming the customer by its ID.
func TestAdminRoleFromAURLSourcedCredential(t *testing.T) {
	t.Parallel()
	iss, _ := googlefake.NewIssuer("https://sts.windows.net/00000000-0000-0000-0000-00000000demo/")
	var p googlefake.Provider
	d := keyless(t, google.AuthAdminRole, googlefake.Options{}, func(dom *googlefake.Domain) {
		p = dom.Federate(googlefake.DemoProvider, iss)
		dom.AllowTokenCreator(account, p.Principal("azure-vm-identity"))
		dom.AdminAccounts = []string{account}
	})
	imds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Metadata") != "True" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"access_token":"` + iss.Token("azure-vm-identity", p.TokenAudience(), time.Hour) + `","token_type":"Bearer"}`))
	}))
	t.Cleanup(imds.Close)
	conf := filepath.Join(t.TempDir(), "external-account.json")
	sourcetest.WriteFile(t, conf, string(d.s.ExternalAccount(p, map[string]any{"url": imds.URL + "/metadata/identity/oauth2/token?api-version=2018-02-01",
		"headers": map[string]string{"Metadata": "True"}, "format": map[string]string{"type": "json", "subject_token_field_name": "access_token"}}, account)))
	d.cfg.Subject, d.cfg.Customer, d.cfg.Credentials = "", googlefake.DemoCustomer, secret.Ref{File: conf}
	res, err := read(t, d.cfg, rules)
	if err != nil {
		t.Fatal(err)
	}
	checkGroups(t, sourcetest.GroupsByEmail(res.Users), demoGroups)
}

// TestAdminRole: the metadata server's service account, with an admin
// role assigned, reads without delegation; without the role it is
// refused with what to assign; a key file of such an account works too.
func TestAdminRole(t *testing.T) {
	t.Parallel()
	d := keyless(t, google.AuthAdminRole, googlefake.Options{}, func(dom *googlefake.Domain) { dom.AdminAccounts = []string{account} })
	d.cfg.Subject, d.cfg.Customer = "", googlefake.DemoCustomer
	if _, err := read(t, d.cfg, rules); err != nil {
		t.Fatalf("metadata server: %v", err)
	}
	d.cfg.Credentials = secret.Ref{File: writeKey(t, d.key, d.s)}
	d.cfg.MetadataURL = "http://127.0.0.1:1"
	if _, err := read(t, d.cfg, rules); err != nil {
		t.Fatalf("key file: %v", err)
	}
	n := keyless(t, google.AuthAdminRole, googlefake.Options{}, nil)
	n.cfg.Subject, n.cfg.Customer = "", googlefake.DemoCustomer
	if _, err := read(t, n.cfg, rules); err == nil || !strings.Contains(err.Error(), "403") || !strings.Contains(err.Error(), "assign the service account an admin role") {
		t.Errorf("no admin role: %v", err)
	}
}

// TestAudienceIsGooglesTokenURI: with the token endpoint behind a proxy
// (tokenURL), the assertion still names Google's token URI, as Google's
// audience check requires.
func TestAudienceIsGooglesTokenURI(t *testing.T) {
	t.Parallel()
	d := startDemo(t, googlefake.Options{}, nil)
	target, _ := url.Parse(d.s.URL)
	proxy := httptest.NewServer(httputil.NewSingleHostReverseProxy(target))
	t.Cleanup(proxy.Close)
	d.cfg.TokenURL = proxy.URL + "/token"
	if _, err := read(t, d.cfg, rules); err != nil {
		t.Fatalf("key file through a proxy: %v", err)
	}
	k := keyless(t, google.AuthSignJwt, googlefake.Options{}, selfSigner)
	target, _ = url.Parse(k.s.URL)
	proxy2 := httptest.NewServer(httputil.NewSingleHostReverseProxy(target))
	t.Cleanup(proxy2.Close)
	k.cfg.TokenURL = proxy2.URL + "/token"
	if _, err := read(t, k.cfg, rules); err != nil {
		t.Fatalf("signJwt through a proxy: %v", err)
	}
}

// TestValidateSignInModes: each mode says what it needs and refuses what
// it does not read.
func TestValidateSignInModes(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		cfg  google.Config
		want map[string]string
	}{
		"unknown":           {google.Config{Auth: "password"}, map[string]string{"auth": "keyFile"}},
		"keyFile":           {google.Config{}, map[string]string{"credentials": "iam.disableServiceAccountKeyCreation", "subject": "required with auth: keyFile"}},
		"signJwt":           {google.Config{Auth: google.AuthSignJwt, Subject: "a@example.com"}, nil},
		"signJwt bad email": {google.Config{Auth: google.AuthSignJwt, Subject: "a@example.com", ServiceAccount: "me@example.com"}, map[string]string{"serviceAccount": "not a service account"}},
		"adminRole my_customer": {google.Config{Auth: google.AuthAdminRole, Subject: "a@example.com", Customer: "my_customer"},
			map[string]string{"subject": "remove subject", "customer": "customer ID"}},
		"adminRole":       {google.Config{Auth: google.AuthAdminRole, Customer: "C03az79cb"}, nil},
		"keyFile with sa": {google.Config{Credentials: secret.Ref{Env: "X"}, Subject: "a@example.com", ServiceAccount: account}, map[string]string{"serviceAccount": "belongs to auth: signJwt"}},
		"negative rate":   {google.Config{Auth: google.AuthSignJwt, Subject: "a@example.com", RateLimit: -1}, map[string]string{"rateLimit": "negative"}},
	} {
		sourcetest.CheckProblems(t, name, c.cfg.Validate(), c.want)
	}
}

// TestSignJwtFromAWS: a workload on AWS signs a GetCallerIdentity
// request with its AWS credentials (here from the environment, as on a
// container with a task role's keys), the Security Token Service checks
// it, and the role impersonates the service account; a wrong AWS secret
// is refused.
func TestSignJwtFromAWS(t *testing.T) {
	// Not parallel: the AWS credentials are read from environment variables (t.Setenv).
	const role = "arn:aws:sts::123456789012:assumed-role/orgsync/i-0123"
	var p googlefake.Provider
	d := keyless(t, google.AuthSignJwt, googlefake.Options{}, func(dom *googlefake.Domain) {
		p = googlefake.Provider{Name: googlefake.DemoProvider, AWS: true}
		dom.Providers = append(dom.Providers, p)
		dom.AWSKeys = map[string]googlefake.AWSKey{"AKIAFAKEORGSYNC": {Secret: "aws-secret-of-the-role", ARN: role}}
		dom.AllowTokenCreator(account, p.Principal(role))
		selfSigner(dom)
	})
	conf := filepath.Join(t.TempDir(), "external-account.json")
	sourcetest.WriteFile(t, conf, string(d.s.ExternalAccount(p, map[string]any{"environment_id": "aws1",
		"regional_cred_verification_url": "https://sts.{region}.amazonaws.com?Action=GetCallerIdentity&Version=2011-06-15"}, account)))
	d.cfg.Credentials = secret.Ref{File: conf}
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAFAKEORGSYNC")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "aws-secret-of-the-role")
	t.Setenv("AWS_REGION", "eu-west-1")
	res, err := read(t, d.cfg, rules)
	if err != nil {
		t.Fatal(err)
	}
	checkGroups(t, sourcetest.GroupsByEmail(res.Users), demoGroups)
	t.Setenv("AWS_SECRET_ACCESS_KEY", "not-the-secret")
	if _, err := read(t, d.cfg, rules); err == nil || !strings.Contains(err.Error(), "signature does not match") || strings.Contains(err.Error(), "not-the-secret") {
		t.Fatalf("wrong AWS secret: %v", err)
	}
}
