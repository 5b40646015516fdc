package entra_test

import (
	"context"
	"errors"
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
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/entra"
	"github.com/orgsync/orgsync/source/entra/entrafake"
	"github.com/orgsync/orgsync/source/internal/sourcetest"
)

// The tests in this file hold the sign-ins to what Microsoft documents
// (issue: the cloud sign-ins as the clouds document them) and to the
// outbound transport's promises: no credential follows a redirect, no
// identity endpoint is reached through a proxy.

// readVia reads cfg with every request but the identity endpoint's
// through proxy.
func readVia(t *testing.T, cfg entra.Config, proxy *outboundtest.Proxy) error {
	t.Helper()
	s := open(t, cfg, source.Options{Mapper: sourcetest.Mapper(t, rules)}).(*entra.Source)
	s.Retry.Proxy = proxy.Func()
	_, err := s.Read(context.Background())
	return err
}

// TestIdentityEndpointNeverProxied: with a proxy for everything (the
// fake's instance metadata service refuses a request a proxy relayed, as
// the real one does), the token comes from the endpoint directly and
// Graph is read through the proxy.
func TestIdentityEndpointNeverProxied(t *testing.T) {
	t.Parallel()
	s, cfg := managed(t, entrafake.Options{}, entrafake.ManagedIdentity{SystemAssigned: true, Permissions: entrafake.DefaultPermissions})
	imds := outboundtest.Front(t, s.URL, s.URL, 0, func(*http.Request) bool { return false })
	cfg.IdentityEndpoint = imds.URL + entrafake.IMDSPath
	proxy := outboundtest.NewProxy(t)
	if err := readVia(t, cfg, proxy); err != nil {
		t.Fatalf("managed identity behind a proxy: %v", err)
	}
	if n, m := proxy.Relayed(strings.TrimPrefix(s.URL, "http://")), proxy.Relayed(strings.TrimPrefix(imds.URL, "http://")); n == 0 || m != 0 {
		t.Errorf("the proxy relayed %d Graph requests and %d to the identity endpoint, want some and none", n, m)
	}
}

// TestIMDSWhileItUpdates: the instance metadata service answers 404 and
// 410 while it updates; they are retried (Microsoft: it is back within
// 70 seconds of a 410), and when it never comes back the advice says so.
func TestIMDSWhileItUpdates(t *testing.T) {
	t.Parallel()
	id := entrafake.ManagedIdentity{SystemAssigned: true, Permissions: entrafake.DefaultPermissions}
	s, cfg := managed(t, entrafake.Options{IMDSUpdating: []int{http.StatusGone, http.StatusNotFound, http.StatusGone}}, id)
	if res, err := read(t, cfg, rules, false); err != nil || res.Users.Len() != 6 {
		t.Fatalf("410, 404, 410, then a token: %v", err)
	}
	if n := s.IMDSRequests(); n != 4 {
		t.Errorf("%d token requests, want 4", n)
	}
	_, cfg = managed(t, entrafake.Options{IMDSUpdating: []int{410, 410, 410, 410, 410, 410, 410, 410, 410, 410}}, id)
	_, err := read(t, cfg, rules, false)
	if err == nil || !strings.Contains(err.Error(), "answered 410 on every attempt") || strings.Contains(err.Error(), "no managed identity endpoint answers here") {
		t.Errorf("410 on every attempt: %v", err)
	}
}

// TestMissingFederatedTokenFile: a token file that is not there fails at
// once (it is no network error to retry), naming the file, with what
// makes AKS mount it.
func TestMissingFederatedTokenFile(t *testing.T) {
	t.Parallel()
	s, _, cfg, _ := federated(t, entrafake.Options{})
	cfg.FederatedTokenFile = filepath.Join(t.TempDir(), "azure-identity-token")
	src := open(t, cfg, source.Options{Mapper: sourcetest.Mapper(t, rules)}).(*entra.Source)
	src.Retry.MinWait, src.Retry.MaxWait = 5*time.Second, 5*time.Second // a retry would show
	start := time.Now()
	_, err := src.Read(context.Background())
	if err == nil || !strings.Contains(err.Error(), cfg.FederatedTokenFile) || !strings.Contains(err.Error(), "azure.workload.identity/use") {
		t.Errorf("missing token file: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second { // a retry waits half of minWait at least
		t.Errorf("failed after %s: retried", d)
	}
	if n := s.Stats().Requests; n != 0 {
		t.Errorf("%d Graph requests", n)
	}
}

// TestIdentityEndpointSpeaksAppService: identityEndpoint set to App
// Service's endpoint speaks its protocol when IDENTITY_HEADER is set (as
// App Service sets it), and a wrong header is told as such, without its
// value.
func TestIdentityEndpointSpeaksAppService(t *testing.T) {
	// Not parallel: the identity endpoint's settings are read from environment variables, as Azure sets them (t.Setenv).
	s, cfg := managed(t, entrafake.Options{IdentityHeader: "app-service-header-value"},
		entrafake.ManagedIdentity{SystemAssigned: true, Permissions: entrafake.DefaultPermissions})
	cfg.IdentityEndpoint = s.URL + entrafake.AppServicePath
	t.Setenv(entra.EnvIdentityEndpoint, "")
	t.Setenv(entra.EnvIdentityHeader, "app-service-header-value")
	if res, err := read(t, cfg, rules, false); err != nil || res.Users.Len() != 6 {
		t.Fatalf("identityEndpoint of App Service: %v", err)
	}
	t.Setenv(entra.EnvIdentityHeader, "wrong-header-value")
	_, err := read(t, cfg, rules, false)
	if err == nil || !strings.Contains(err.Error(), "refused X-IDENTITY-HEADER") || strings.Contains(err.Error(), "no managed identity endpoint answers here") ||
		strings.Contains(err.Error(), "wrong-header-value") {
		t.Errorf("wrong identity header: %v", err)
	}
	t.Setenv(entra.EnvIdentityHeader, "")
	if _, err := read(t, cfg, rules, false); err == nil || !strings.Contains(err.Error(), "IDENTITY_HEADER must be set") {
		t.Errorf("App Service's endpoint without IDENTITY_HEADER: %v", err)
	}
}

// TestAuthorityHostFromTheEnvironment: AKS workload identity sets
// AZURE_AUTHORITY_HOST; without loginURL, the token is asked for there.
// A value that is not a URL is refused by validate.
func TestAuthorityHostFromTheEnvironment(t *testing.T) {
	// Not parallel: the identity endpoint's settings are read from environment variables, as Azure sets them (t.Setenv).
	_, _, cfg, _ := federated(t, entrafake.Options{})
	t.Setenv(entra.EnvAuthorityHost, cfg.LoginURL+"/")
	cfg.LoginURL = ""
	if res, err := read(t, cfg, rules, false); err != nil || res.Users.Len() != 6 {
		t.Fatalf("AZURE_AUTHORITY_HOST: %v", err)
	}
	t.Setenv(entra.EnvAuthorityHost, "login.example")
	sourcetest.CheckProblems(t, "AZURE_AUTHORITY_HOST not a URL", cfg.Validate(), map[string]string{"loginURL": "AZURE_AUTHORITY_HOST"})
}

// TestRedirectsCarryNoCredentials: every Entra ID endpoint that redirects
// to another host (the token endpoint with a client secret or a
// federated token, Graph with the access token, the instance metadata
// service, App Service's endpoint with its header) is refused, naming
// both hosts, and not a byte reaches the other host.
func TestRedirectsCarryNoCredentials(t *testing.T) {
	// Not parallel: the identity endpoint's settings are read from environment variables, as Azure sets them (t.Setenv).
	t.Setenv(entra.EnvIdentityEndpoint, "")
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret")
	if err := os.WriteFile(secretFile, []byte(entrafake.DemoSecret), 0o600); err != nil {
		t.Fatal(err)
	}
	id := entrafake.ManagedIdentity{SystemAssigned: true, Permissions: entrafake.DefaultPermissions}
	for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		for name, c := range map[string]struct {
			at     string
			header string
			cfg    func(s *entrafake.Server, front string) entra.Config
		}{
			"client secret at the token endpoint": {at: "/oauth2/v2.0/token", cfg: func(_ *entrafake.Server, front string) entra.Config {
				return entra.Config{TenantID: entrafake.DemoTenantID, ClientID: entrafake.DemoClientID, ClientSecret: secret.Ref{File: secretFile}, LoginURL: front, GraphURL: front}
			}},
			"Graph": {at: "/v1.0/", cfg: func(_ *entrafake.Server, front string) entra.Config {
				return entra.Config{TenantID: entrafake.DemoTenantID, ClientID: entrafake.DemoClientID, ClientSecret: secret.Ref{File: secretFile}, LoginURL: front, GraphURL: front}
			}},
			"instance metadata service": {at: entrafake.IMDSPath, cfg: func(_ *entrafake.Server, front string) entra.Config {
				return entra.Config{Auth: entra.AuthManagedIdentity, IdentityEndpoint: front + entrafake.IMDSPath, LoginURL: front, GraphURL: front}
			}},
			"App Service": {at: entrafake.AppServicePath, header: "app-service-header-value", cfg: func(_ *entrafake.Server, front string) entra.Config {
				return entra.Config{Auth: entra.AuthManagedIdentity, IdentityEndpoint: front + entrafake.AppServicePath, LoginURL: front, GraphURL: front}
			}},
		} {
			t.Setenv(entra.EnvIdentityHeader, c.header)
			tenant := entrafake.Demo()
			tenant.Identities = []entrafake.ManagedIdentity{id}
			s := entrafake.Start(tenant, entrafake.Options{IdentityHeader: c.header})
			other := outboundtest.NewCatcher(t)
			front := outboundtest.Front(t, s.URL, other.URL, status, func(r *http.Request) bool { return strings.Contains(r.URL.Path, c.at) })
			_, err := read(t, c.cfg(s, front.URL), rules, false)
			refusal := (&outbound.RedirectError{From: front.URL, To: other.URL, Status: status}).Error()
			if err == nil || !strings.Contains(err.Error(), refusal) {
				t.Errorf("%d, %s: %v, want the redirect refused", status, name, err)
			}
			var re *outbound.RedirectError
			if c.at != "/oauth2/v2.0/token" && !errors.As(err, &re) {
				t.Errorf("%d, %s: the refusal is not an outbound.RedirectError: %v", status, name, err)
			}
			other.Check(t, fmt.Sprintf("%d, %s", status, name), entrafake.DemoSecret, "app-service-header-value")
			s.Close()
		}
	}
}
