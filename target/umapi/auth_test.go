package umapi

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
	"github.com/orgsync/orgsync/target/umwire"
)

// The tests in this file cover authentication against the simulator's
// token endpoints and gate, over loopback HTTP.

// testIntegration makes the RSA key pair once per test binary: generating
// one takes about a second on a busy machine.
var testIntegration = sync.OnceValues(gate.NewTestIntegration)

// creds are a served integration: what a client configuration needs.
type creds struct {
	srv *httptest.Server
	in  gate.Integration
	key *rsa.PrivateKey
}

// config returns a client configuration for the env's integration with
// the given method (AuthJWT or AuthOAuth), retrying fast, with limits far
// above the simulator's (which has none unless a test sets them).
func (e *creds) config(method string) Config {
	cfg := Config{
		BaseURL: e.srv.URL, AuthBaseURL: e.srv.URL, OrgID: fakeOrg, AuthMethod: method,
		ClientID: e.in.ClientID, ClientSecret: e.in.ClientSecret,
		RetryWaitMin: 5 * time.Millisecond, RetryWaitMax: 50 * time.Millisecond,
		ReadLimit: 1000, AppLimit: 1000, LimitWindow: time.Second,
	}
	if method == AuthJWT {
		cfg.TechAccountID = e.in.TechnicalAccountID
		cfg.PrivateKeyPEM = string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(e.key)}))
	}
	return cfg
}

func mustClient(t testing.TB, cfg Config, opts ...Option) *Client {
	t.Helper()
	c, err := New(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func countUsers(t *testing.T, c *Client) int {
	t.Helper()
	n := 0
	for p, err := range c.OrgUsers(context.Background(), OrgUsersOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		n += len(p.Users)
	}
	return n
}

// Both ways of getting a token work against the simulator's token endpoints.
func TestAuthMethods(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t, testState(3), umsim.Options{PageSize: 1})
	for _, method := range []string{AuthJWT, AuthOAuth} {
		t.Run(method, func(t *testing.T) {
			c := mustClient(t, e.config(method))
			if n := countUsers(t, c); n != 4 {
				t.Fatalf("read %d users, want 4", n)
			}
			if got := c.Stats().Requests[EndpointToken][http.StatusOK]; got != 1 {
				t.Errorf("token requests = %d, want 1", got)
			}
		})
	}
}

// Refused credentials give an auth failure naming the token endpoint's
// error, sent once (a 400 is not retried), without the secret in it.
func TestAuthFailures(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t, testState(3), umsim.Options{})
	otherKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change func(*Config)
	}{
		{"wrong secret, oauth", func(c *Config) { c.AuthMethod, c.ClientSecret = AuthOAuth, "wrong-secret-xyz" }},
		{"wrong secret, jwt", func(c *Config) { c.ClientSecret = "wrong-secret-xyz" }},
		{"bad key, jwt", func(c *Config) {
			c.PrivateKeyPEM = string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(otherKey)}))
		}},
		{"wrong technical account", func(c *Config) { c.TechAccountID = "other@techacct.VendorOrg" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := e.config(AuthJWT)
			tc.change(&cfg)
			c := mustClient(t, cfg)
			_, err := c.OrgUsersPage(context.Background(), 0, OrgUsersOptions{})
			var ae *APIError
			if !IsAuthFailure(err) || !errors.As(err, &ae) || ae.Endpoint != EndpointToken || ae.Code != umwire.TokenErrInvalidClient {
				t.Fatalf("err = %v, want a token invalid_client failure", err)
			}
			if strings.Contains(err.Error(), cfg.ClientSecret) || strings.Contains(err.Error(), "PRIVATE") {
				t.Errorf("error shows a secret: %v", err)
			}
			if s := c.Stats(); s.Total() != 1 || s.Requests[EndpointOrgUsers] != nil {
				t.Errorf("requests = %v, want the one token request", s.Requests)
			}
		})
	}
}

// A token the service did not issue is refused with 401 even after one
// refresh (which fetches another token from the wrong server).
func TestForeignToken(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t, testState(3), umsim.Options{})
	other := newSimEnv(t, testState(3), umsim.Options{}) // same integration, its own token key
	cfg := other.config(AuthOAuth)
	cfg.BaseURL = e.srv.URL // tokens of another simulator: unknown here
	c := mustClient(t, cfg)
	_, err := c.OrgUsersPage(context.Background(), 0, OrgUsersOptions{})
	if !IsUnauthorized(err) || !IsAuthFailure(err) || c.Stats().Requests[EndpointOrgUsers][http.StatusUnauthorized] != 2 {
		t.Errorf("err = %v, requests %v; want 401 twice", err, c.Stats().Requests)
	}
}

// manualClock is a clock shared by simulator and client that tests move on.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (m *manualClock) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

func (m *manualClock) Advance(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = m.now.Add(d)
}

// A run longer than the token's lifetime goes on: with the service's clock,
// the client refreshes before expiry (no 401); with its own clock unaware
// of the time passing, it refreshes on the 401 and retries.
func TestTokenExpiryMidRun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		shareClock bool
		want401    int
	}{
		{"refresh before expiry", true, 0},
		{"refresh on 401", false, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &manualClock{now: time.Now()}
			e := newSimEnv(t, testState(5), umsim.Options{PageSize: 1, TokenLifetime: time.Hour, Clock: clock.Now})
			var opts []Option
			if tc.shareClock {
				opts = append(opts, WithClock(clock.Now))
			}
			// OAuth: a JWT signed on the client's own clock would be expired
			// for the service's advanced one.
			// One page at a time, so that the clock moves between requests.
			cfg := e.config(AuthOAuth)
			cfg.ReadAhead = -1
			c := mustClient(t, cfg, opts...)
			n := 0
			for p, err := range c.OrgUsers(context.Background(), OrgUsersOptions{}) {
				if err != nil {
					t.Fatal(err)
				}
				n += len(p.Users)
				clock.Advance(2 * time.Hour) // every token expires between two pages
			}
			s := c.Stats()
			if n != 5 || s.Requests[EndpointToken][http.StatusOK] != 5 || s.Requests[EndpointOrgUsers][http.StatusUnauthorized] != tc.want401 {
				t.Errorf("users %d, requests %v; want 5 users, 5 tokens, %d 401s", n, s.Requests, tc.want401)
			}
		})
	}
}
