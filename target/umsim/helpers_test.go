package umsim

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umwire"
)

const (
	testOrg    = "0A1B2C3D4E5F@VendorOrg"
	testClient = "sim-client"
)

// fakeClock is a clock the tests move by hand.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

// fixture is a simulator seeded from testdata/org.yaml, served over
// loopback HTTP.
type fixture struct {
	t     *testing.T
	srv   *Server
	http  *httptest.Server
	clock *fakeClock
	token string
	// client and secret are the integration the requests are sent as;
	// testClient by default.
	client, secret string
}

func newFixture(t *testing.T, opts Options) *fixture {
	t.Helper()
	st, err := LoadState("testdata/org.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return newFixtureFrom(t, st, opts)
}

// newFixtureFrom serves st.
func newFixtureFrom(t *testing.T, st *State, opts Options) *fixture {
	t.Helper()
	clock := &fakeClock{now: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)}
	if opts.Clock == nil {
		opts.Clock = clock.Now
	}
	srv, err := New(st, opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	f := &fixture{t: t, srv: srv, http: hs, clock: clock, client: testClient, secret: "sim-secret"}
	f.token = f.fetchToken()
	return f
}

// fetchToken gets an access token at the client-credentials endpoint.
func (f *fixture) fetchToken() string {
	f.t.Helper()
	form := url.Values{
		umwire.FormGrantType: {umwire.GrantClientCredentials}, umwire.FormClientID: {f.client},
		umwire.FormClientSecret: {f.secret}, umwire.FormScope: {"openid"},
	}
	resp, err := f.http.Client().PostForm(f.http.URL+umwire.PathClientCredentials, form)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	var tr umwire.TokenResponse
	if err := json.NewDecoder(resp.Body).Decode(&tr); err != nil || tr.AccessToken == "" {
		f.t.Fatalf("token: status %d, %v", resp.StatusCode, err)
	}
	return tr.AccessToken
}

// response is one HTTP answer.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("body %q: %v", r.body, err)
	}
}

// do sends a request; path is relative to umwire.BasePath unless it starts
// with "/_sim/".
func (f *fixture) do(method, path, body string, hdr ...string) response {
	f.t.Helper()
	if !strings.HasPrefix(path, "/_sim/") {
		path = umwire.BasePath + path
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, f.http.URL+path, rd)
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+f.token)
	req.Header.Set(umwire.HeaderAPIKey, f.client)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := f.http.Client().Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// page gets a listing page and checks it is a 200.
func (f *fixture) page(path string) (umwire.UsersPage, http.Header) {
	f.t.Helper()
	r := f.do("GET", path, "")
	if r.status != http.StatusOK {
		f.t.Fatalf("GET %s: status %d, body %s", path, r.status, r.body)
	}
	var p umwire.UsersPage
	r.decode(f.t, &p)
	return p, r.header
}

// action posts an action body and checks the status is 200.
func (f *fixture) action(body string, query string) umwire.ActionResponse {
	f.t.Helper()
	r := f.do("POST", "/action/"+testOrg+query, body, "Content-Type", "application/json")
	if r.status != http.StatusOK {
		f.t.Fatalf("action %s: status %d, body %s", body, r.status, r.body)
	}
	var resp umwire.ActionResponse
	r.decode(f.t, &resp)
	return resp
}

// user returns the snapshot's member with that email, or nil.
func (f *fixture) user(email string) *User {
	for _, u := range f.srv.Snapshot().Users {
		if strings.EqualFold(u.Email, email) {
			return &u
		}
	}
	return nil
}

func emails(us []umwire.User) []string {
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = u.Email
	}
	return out
}
