package umapi

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/internal/util/outbound"
	"github.com/orgsync/orgsync/internal/util/outbound/outboundtest"
	"github.com/orgsync/orgsync/target/umwire"
)

// TestRedirectsCarryNoCredentials replays the attack of a service address
// that redirects: the authorization server redirecting the token request
// (307 would re-POST client_id, client_secret and the signed JWT), the
// API redirecting a listing (the access token and the API key) and an
// action (its body). Every redirect status to another host is refused
// with an error naming both hosts, is not retried, and not a byte
// reaches the other host.
func TestRedirectsCarryNoCredentials(t *testing.T) {
	t.Parallel()
	_, key := testIntegration()
	keyPEM := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	for _, status := range outboundtest.RedirectStatuses {
		other := outboundtest.NewCatcher(t)
		redirect := func(w http.ResponseWriter, r *http.Request) { outboundtest.Redirect(w, r, other.URL, status) }
		api := newFake(t, redirect)
		signIn := httptest.NewServer(http.HandlerFunc(redirect))
		t.Cleanup(signIn.Close)
		for _, method := range []string{AuthOAuth, AuthJWT} {
			c := api.client(t, func(cfg *Config) {
				cfg.AuthBaseURL, cfg.AuthMethod, cfg.TechAccountID, cfg.PrivateKeyPEM = signIn.URL, method, "tech@techacct", keyPEM
			})
			_, err := c.OrgUsersPage(context.Background(), 0, OrgUsersOptions{})
			checkRefused(t, fmt.Sprintf("%d, token request (%s)", status, method), err, signIn.URL, other.URL)
		}
		c := api.client(t)
		_, err := c.OrgUsersPage(context.Background(), 0, OrgUsersOptions{})
		checkRefused(t, fmt.Sprintf("%d, listing", status), err, api.srv.URL, other.URL)
		_, err = c.Action(context.Background(), []umwire.Entry{{User: "a@example.com", Do: []umwire.Step{{Add: &umwire.Membership{Group: []string{"G"}}}}}}, ActionOptions{})
		checkRefused(t, fmt.Sprintf("%d, action", status), err, api.srv.URL, other.URL)
		if n := api.count(); n != 2 {
			t.Errorf("%d: the service was sent %d requests, want 2 (a refused redirect is not retried)", status, n)
		}
		other.Check(t, fmt.Sprintf("%d", status), "s3cret-value", "client-1", "ey-token-", "tech@techacct", "eyJ")
	}
}

// checkRefused checks that err is the refusal of a redirect from one host
// to the other, naming both.
func checkRefused(t *testing.T, what string, err error, from, to string) {
	t.Helper()
	var re *outbound.RedirectError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), strings.TrimPrefix(from, "http://")) || !strings.Contains(err.Error(), strings.TrimPrefix(to, "http://")) {
		t.Errorf("%s: %v, want the redirect refused, naming both hosts", what, err)
	}
}
