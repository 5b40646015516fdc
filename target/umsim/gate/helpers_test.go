package gate

import (
	"crypto/rsa"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/orgsync/orgsync/target/umwire"
)

const (
	testOrg   = "0123ABCD@VendorOrg"
	otherOrg  = "FFFF0000@VendorOrg"
	usersPath = umwire.BasePath + "/users/" + testOrg + "/0"
)

// testKeys generates two integrations once: key generation is slow.
var testKeys = sync.OnceValue(func() [2]keyed {
	var k [2]keyed
	for i := range k {
		k[i].in, k[i].key = NewTestIntegration()
	}
	return k
})

type keyed struct {
	in  Integration
	key *rsa.PrivateKey
}

// fakeClock is a Clock that moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// env is a gate over loopback HTTP in front of a fake API handler that
// counts its calls and answers 200 {"ok":true}.
type env struct {
	t      *testing.T
	gate   *Gate
	srv    *httptest.Server
	clock  *fakeClock
	in     Integration
	key    *rsa.PrivateKey
	calls  atomic.Int64
	client *http.Client
}

// newEnv starts a gate for testOrg with the two test integrations (the
// first is e.in); edit may change the config first.
func newEnv(t *testing.T, edit func(*Config)) *env {
	t.Helper()
	k := testKeys()
	e := &env{t: t, clock: newFakeClock(), in: k[0].in, key: k[0].key}
	cfg := Config{OrgID: testOrg, Integrations: []Integration{k[0].in, k[1].in}, Clock: e.clock.Now}
	if edit != nil {
		edit(&cfg)
	}
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"ok":true}`)
	})
	g, err := New(cfg, next)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	e.gate = g
	e.srv = httptest.NewServer(g)
	t.Cleanup(e.srv.Close)
	// No keep-alive: a dropped connection is never retried by the transport.
	e.client = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	return e
}

// response is a finished exchange.
type response struct {
	status int
	header http.Header
	body   string
}

// do sends a request and reads the whole answer; a transport error fails
// the test.
func (e *env) do(req *http.Request) response {
	e.t.Helper()
	resp, err := e.send(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	return resp
}

func (e *env) send(req *http.Request) (response, error) {
	resp, err := e.client.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: string(b)}, err
}

// apiRequest builds a request to path with the token and API key given
// ("" leaves a header out).
func (e *env) apiRequest(method, path, token, apiKey string) *http.Request {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if apiKey != "" {
		req.Header.Set(umwire.HeaderAPIKey, apiKey)
	}
	return req
}

// get sends an authorized GET to path as e.in.
func (e *env) get(path, token string) response {
	e.t.Helper()
	return e.do(e.apiRequest(http.MethodGet, path, token, e.in.ClientID))
}

// postForm posts form to a token endpoint.
func (e *env) postForm(path string, form url.Values) response {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return e.do(req)
}

// token gets an access token for in by client credentials.
func (e *env) token(in Integration) string {
	e.t.Helper()
	resp := e.postForm(umwire.PathClientCredentials, url.Values{
		umwire.FormGrantType:    {umwire.GrantClientCredentials},
		umwire.FormClientID:     {in.ClientID},
		umwire.FormClientSecret: {in.ClientSecret},
		umwire.FormScope:        {"openid,user_management_sdk"},
	})
	if resp.status != http.StatusOK {
		e.t.Fatalf("token: %d %s", resp.status, resp.body)
	}
	var tr umwire.TokenResponse
	if err := json.Unmarshal([]byte(resp.body), &tr); err != nil {
		e.t.Fatalf("token body %q: %v", resp.body, err)
	}
	return tr.AccessToken
}

// assertionClaims are valid claims of a JWT exchange for e.in.
func (e *env) assertionClaims() jwt.MapClaims {
	return jwt.MapClaims{
		"iss": testOrg,
		"sub": e.in.TechnicalAccountID,
		"aud": e.srv.URL + "/c/" + e.in.ClientID,
		"exp": e.clock.Now().Add(time.Hour).Unix(),
		e.srv.URL + "/s/" + umwire.ClaimEntUserSDK: true,
	}
}

// sign signs claims with key (RS256).
func sign(t *testing.T, key *rsa.PrivateKey, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodRS256, claims).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
