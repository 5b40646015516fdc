package okta_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/internal/util/outbound"
	"github.com/orgsync/orgsync/internal/util/outbound/outboundtest"
	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source/okta"
	"github.com/orgsync/orgsync/source/okta/oktafake"
)

// TestRedirectsCarryNoCredentials: Okta's API redirecting a request with
// the API token (SSWS), and the token endpoint redirecting a service
// app's signed assertion with its DPoP proof, to another host: refused,
// naming both hosts, and not a byte reaches the other host.
func TestRedirectsCarryNoCredentials(t *testing.T) {
	t.Parallel()
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(oktafake.DemoToken), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		for name, at := range map[string]string{"API with the API token": "/api/v1/", "service app at the token endpoint": "/v1/token"} {
			var s *oktafake.Server
			var cfg okta.Config
			if strings.HasPrefix(at, "/api") {
				s = startDemo(t, oktafake.Options{})
				cfg = okta.Config{OrgURL: s.URL, APIToken: secret.Ref{File: tokenFile}}
			} else {
				s, cfg = dpopOrg(t, oktafake.Options{}, true)
				cfg.DPoP = "always"
			}
			other := outboundtest.NewCatcher(t)
			front := outboundtest.Front(t, s.URL, other.URL, status, func(r *http.Request) bool { return strings.Contains(r.URL.Path, at) })
			cfg.OrgURL = front.URL
			_, err := read(t, cfg, rules)
			if refusal := (&outbound.RedirectError{From: front.URL, To: other.URL, Status: status}).Error(); err == nil || !strings.Contains(err.Error(), refusal) {
				t.Errorf("%d, %s: %v, want the redirect refused", status, name, err)
			}
			other.Check(t, fmt.Sprintf("%d, %s", status, name), oktafake.DemoToken, "eyJ", "DPoP")
		}
	}
}
