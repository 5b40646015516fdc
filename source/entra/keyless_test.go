package entra_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/source/internal/sourcetest"

	"github.com/orgsync/orgsync/source/entra"
	"github.com/orgsync/orgsync/source/entra/entrafake"
)

// federated starts the demo tenant trusting a new issuer (an AKS
// cluster's) for the demo service account, and returns it, the issuer and
// a configuration signing in with a federated token file holding tok
// (written by the caller with writeToken).
func federated(t *testing.T, o entrafake.Options) (*entrafake.Server, *entrafake.Issuer, entra.Config, string) {
	t.Helper()
	iss, err := entrafake.NewIssuer(entrafake.DemoIssuer)
	if err != nil {
		t.Fatal(err)
	}
	tenant := entrafake.Demo()
	tenant.Trust(iss)
	s := entrafake.Start(tenant, o)
	t.Cleanup(s.Close)
	file := filepath.Join(t.TempDir(), "azure-identity-token")
	sourcetest.WriteFile(t, file, iss.Token(entrafake.DemoServiceAccount, entrafake.DefaultFederatedAudience, time.Hour))
	return s, iss, entra.Config{TenantID: entrafake.DemoTenantID, ClientID: entrafake.DemoClientID, Auth: entra.AuthWorkloadIdentity,
		FederatedTokenFile: file, LoginURL: s.URL, GraphURL: s.URL}, file
}

// TestWorkloadIdentity: the federated token file is the client
// assertion, read anew for every token request (it rotates): a token
// that expired in the file fails the next sign-in, a renewed one signs in
// again; no secret is configured.
func TestWorkloadIdentity(t *testing.T) {
	t.Parallel()
	_, iss, cfg, file := federated(t, entrafake.Options{})
	res, err := read(t, cfg, rules, false)
	if err != nil || res.Users.Len() != 6 {
		t.Fatalf("workload identity: %v (%d users)", err, res.Users.Len())
	}
	sourcetest.WriteFile(t, file, iss.Token(entrafake.DemoServiceAccount, entrafake.DefaultFederatedAudience, -time.Minute))
	if _, err := read(t, cfg, rules, false); err == nil || !strings.Contains(err.Error(), "AADSTS700024") || !strings.Contains(err.Error(), "projected service account token") {
		t.Fatalf("expired token in the file: %v, want AADSTS700024 with advice", err)
	}
	sourcetest.WriteFile(t, file, iss.Token(entrafake.DemoServiceAccount, entrafake.DefaultFederatedAudience, time.Hour))
	if _, err := read(t, cfg, rules, false); err != nil {
		t.Fatalf("renewed token: %v", err)
	}
}

// TestWorkloadIdentityFromTheEnvironment: with auth: workloadIdentity
// alone, the tenant, the client and the token file come from the
// variables AKS sets on the pod.
func TestWorkloadIdentityFromTheEnvironment(t *testing.T) {
	// Not parallel: the credential is read from environment variables, as Azure sets them (t.Setenv).
	s, _, cfg, file := federated(t, entrafake.Options{})
	t.Setenv(entra.EnvTenantID, cfg.TenantID)
	t.Setenv(entra.EnvClientID, cfg.ClientID)
	t.Setenv(entra.EnvFederatedTokenFile, file)
	bare := entra.Config{Auth: entra.AuthWorkloadIdentity, LoginURL: s.URL, GraphURL: s.URL}
	if errs := bare.Validate(); len(errs) > 0 {
		t.Fatalf("validate with the AKS environment: %v", errs)
	}
	if res, err := read(t, bare, rules, false); err != nil || res.Users.Len() != 6 {
		t.Fatalf("read: %v", err)
	}
	t.Setenv(entra.EnvFederatedTokenFile, "")
	t.Setenv(entra.EnvTenantID, "")
	var fields []string
	for _, fe := range bare.Validate() {
		fields = append(fields, fe.Field)
		if !strings.Contains(fe.Reason, "AZURE_") {
			t.Errorf("%s: %q does not name the variable AKS sets", fe.Field, fe.Reason)
		}
	}
	if want := []string{"tenantId", "federatedTokenFile"}; !slices.Equal(fields, want) {
		t.Errorf("problems in %v, want %v", fields, want)
	}
}

// TestFederatedCredentialMismatch: Entra ID compares the token's issuer,
// subject and audience with the app's federated credentials exactly, and
// says which one matched none; so does the fake, and the source says how
// to add the credential.
func TestFederatedCredentialMismatch(t *testing.T) {
	t.Parallel()
	_, iss, cfg, file := federated(t, entrafake.Options{})
	other, _ := entrafake.NewIssuer("https://oidc.other.example/")
	for name, c := range map[string]struct{ tok, code string }{
		"subject":                           {iss.Token("system:serviceaccount:default:default", entrafake.DefaultFederatedAudience, time.Hour), "AADSTS700213"},
		"audience":                          {iss.Token(entrafake.DemoServiceAccount, "api://other", time.Hour), "AADSTS700212"},
		"issuer":                            {other.Token(entrafake.DemoServiceAccount, entrafake.DefaultFederatedAudience, time.Hour), "AADSTS700211"},
		"not a token issued by the cluster": {"not-a-jwt", "AADSTS700211"},
	} {
		sourcetest.WriteFile(t, file, c.tok)
		_, err := read(t, cfg, rules, false)
		if err == nil || !strings.Contains(err.Error(), c.code) || !strings.Contains(err.Error(), "system:serviceaccount:<namespace>:<service account>") {
			t.Errorf("%s: %v, want %s and how to add the federated credential", name, err, c.code)
		}
	}
}

// managed returns the demo tenant with managed identities ids and a
// configuration signing in as a managed identity through the instance
// metadata endpoint of the fake.
func managed(t *testing.T, o entrafake.Options, ids ...entrafake.ManagedIdentity) (*entrafake.Server, entra.Config) {
	t.Helper()
	tenant := entrafake.Demo()
	tenant.Identities = ids
	s := entrafake.Start(tenant, o)
	t.Cleanup(s.Close)
	return s, entra.Config{Auth: entra.AuthManagedIdentity, IdentityEndpoint: s.URL + entrafake.IMDSPath, LoginURL: s.URL, GraphURL: s.URL}
}

// TestManagedIdentity: the instance metadata service gives the token of
// the system-assigned identity, or of the user-assigned one clientId
// names; several user-assigned identities need clientId.
func TestManagedIdentity(t *testing.T) {
	t.Parallel()
	perms := entrafake.DefaultPermissions
	_, cfg := managed(t, entrafake.Options{}, entrafake.ManagedIdentity{SystemAssigned: true, ClientID: "sys", Permissions: perms})
	if res, err := read(t, cfg, rules, false); err != nil || res.Users.Len() != 6 {
		t.Fatalf("system-assigned: %v", err)
	}
	_, cfg = managed(t, entrafake.Options{}, entrafake.ManagedIdentity{ClientID: "ua-1", Permissions: perms}, entrafake.ManagedIdentity{ClientID: "ua-2", Permissions: perms})
	if _, err := read(t, cfg, rules, false); err == nil || !strings.Contains(err.Error(), "set clientId") {
		t.Errorf("two user-assigned identities without clientId: %v", err)
	}
	cfg.ClientID = "ua-2"
	if _, err := read(t, cfg, rules, false); err != nil {
		t.Errorf("user-assigned ua-2: %v", err)
	}
	cfg.ClientID = "ua-3"
	if _, err := read(t, cfg, rules, false); err == nil || !strings.Contains(err.Error(), "Identity not found") || !strings.Contains(err.Error(), "check clientId (ua-3)") {
		t.Errorf("unknown identity: %v", err)
	}
}

// TestManagedIdentityWithoutPermissions: a managed identity's Graph
// permissions are granted by PowerShell or the CLI, not the portal: the
// advice says so.
func TestManagedIdentityWithoutPermissions(t *testing.T) {
	t.Parallel()
	_, cfg := managed(t, entrafake.Options{}, entrafake.ManagedIdentity{SystemAssigned: true})
	_, err := read(t, cfg, rules, false)
	if err == nil || !strings.Contains(err.Error(), "403") || !strings.Contains(err.Error(), "managed identity's service principal") || !strings.Contains(err.Error(), "PowerShell") {
		t.Fatalf("managed identity without Graph permissions: %v", err)
	}
}

// TestManagedIdentityOfAppService: App Service and Container Apps name
// their endpoint and its header in the environment; the fake checks the
// header.
func TestManagedIdentityOfAppService(t *testing.T) {
	// Not parallel: the credential is read from environment variables, as Azure sets them (t.Setenv).
	s, cfg := managed(t, entrafake.Options{IdentityHeader: "app-service-header-value"}, entrafake.ManagedIdentity{SystemAssigned: true, Permissions: entrafake.DefaultPermissions})
	cfg.IdentityEndpoint = ""
	t.Setenv(entra.EnvIdentityEndpoint, s.URL+entrafake.AppServicePath)
	t.Setenv(entra.EnvIdentityHeader, "app-service-header-value")
	if res, err := read(t, cfg, rules, false); err != nil || res.Users.Len() != 6 {
		t.Fatalf("App Service identity: %v", err)
	}
	t.Setenv(entra.EnvIdentityHeader, "wrong")
	if _, err := read(t, cfg, rules, false); err == nil || strings.Contains(err.Error(), "wrong") {
		t.Fatalf("wrong identity header: %v (the header is a secret)", err)
	}
	t.Setenv(entra.EnvIdentityEndpoint, "http://127.0.0.1:1/msi/token")
	t.Setenv(entra.EnvIdentityHeader, "")
	if _, err := read(t, cfg, rules, false); err == nil || !strings.Contains(err.Error(), "IDENTITY_HEADER is not") {
		t.Fatalf("endpoint without header: %v", err)
	}
}

// TestNoManagedIdentityHere: off Azure, the metadata endpoint does not
// answer; the source says where a managed identity works.
func TestNoManagedIdentityHere(t *testing.T) {
	t.Parallel()
	_, cfg := managed(t, entrafake.Options{})
	cfg.IdentityEndpoint = "http://127.0.0.1:1" + entrafake.IMDSPath
	_, err := read(t, cfg, rules, false)
	if err == nil || !strings.Contains(err.Error(), "no managed identity endpoint answers here") {
		t.Fatalf("no endpoint: %v", err)
	}
}

// TestValidateSignInModes: each mode says what it needs, and the keys of
// another mode are refused.
func TestValidateSignInModes(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		cfg  entra.Config
		want map[string]string
	}{
		"unknown mode": {entra.Config{TenantID: "t", ClientID: "c", Auth: "password"}, map[string]string{"auth": "workloadIdentity, managedIdentity"}},
		"nothing":      {entra.Config{TenantID: "t", ClientID: "c"}, map[string]string{"clientSecret": "auth: workloadIdentity"}},
		"secret with a token file": {entra.Config{TenantID: "t", ClientID: "c", Auth: entra.AuthClientSecret, FederatedTokenFile: "/x"},
			map[string]string{"federatedTokenFile": "belongs to auth: workloadIdentity", "clientSecret": "required with auth: clientSecret"}},
		"managed identity needs no ids": {entra.Config{Auth: entra.AuthManagedIdentity}, nil},
		"certificate with an endpoint": {entra.Config{TenantID: "t", ClientID: "c", Auth: entra.AuthCertificate, IdentityEndpoint: "http://x"},
			map[string]string{"identityEndpoint": "belongs to auth: managedIdentity", "certificate": "required"}},
	} {
		sourcetest.CheckProblems(t, name, c.cfg.Validate(), c.want)
	}
}

// TestNotAnIdentityEndpoint: an endpoint that answers, but is not a
// managed identity's (another cloud's metadata service: a bare 403), gets
// the same advice as none at all.
func TestNotAnIdentityEndpoint(t *testing.T) {
	t.Parallel()
	_, cfg := managed(t, entrafake.Options{})
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "Forbidden", http.StatusForbidden)
	}))
	defer other.Close()
	cfg.IdentityEndpoint = other.URL + entrafake.IMDSPath
	_, err := read(t, cfg, rules, false)
	if err == nil || !strings.Contains(err.Error(), "no managed identity endpoint answers here") {
		t.Fatalf("an endpoint that is not a managed identity's: %v", err)
	}
}
