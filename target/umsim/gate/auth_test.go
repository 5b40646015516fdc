package gate

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umwire"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	b := umwire.BasePath
	tests := []struct{ path, name, org string }{
		{b + "/users/" + testOrg + "/3", EndpointUsers, testOrg},
		{b + "/users/" + testOrg + "/3/", EndpointGroupUsers, testOrg}, // empty group name
		{b + "/users/" + testOrg + "/0/Designers", EndpointGroupUsers, testOrg},
		{b + "/users/" + testOrg + "/0/a/b", EndpointGroupUsers, testOrg},
		{b + "/organizations/" + testOrg + "/users/Jo@Example.com", EndpointUser, testOrg},
		{b + "/action/" + testOrg, EndpointAction, testOrg},
		{b + "/" + testOrg + "/invites/", EndpointInvites, testOrg},
		{b + "/" + testOrg + "/invites/jo@example.com", EndpointInvites, testOrg},
		{b + "/organizations/" + testOrg + "/invites/jo@example.com", EndpointInvites, testOrg},
		{b + "/" + testOrg + "/products/", EndpointProducts, testOrg},
		{b + "/" + testOrg + "/users", EndpointAllUsers, testOrg},
		{b, EndpointOther, ""},
		{b + "/users/" + testOrg, EndpointOther, ""},
		{b + "/whatever", EndpointOther, ""},
	}
	for _, tt := range tests {
		if got := classify(tt.path); got.name != tt.name || got.org != tt.org {
			t.Errorf("classify(%q) = %+v, want %s %q", tt.path, got, tt.name, tt.org)
		}
	}
}

func TestAuthorization(t *testing.T) {
	t.Parallel()
	k := testKeys()
	expired := k[1].in
	expired.CertificateExpired = true
	e := newEnv(t, func(c *Config) { c.Integrations[1] = expired })
	tok := e.token(e.in)
	otherGate := newEnv(t, nil) // same credentials, different signing key
	foreign := otherGate.token(e.in)
	expiredTok := e.token(expired)
	tests := []struct {
		name          string
		path          string
		auth          string // whole Authorization header; "" leaves it out
		apiKey        string
		status        int
		wantResult    string // result of a JSON error body; "" expects an empty body
		reachesNext   bool
		wwwAuthHeader bool
	}{
		{name: "valid", path: usersPath, auth: "Bearer " + tok, apiKey: e.in.ClientID, status: 200, reachesNext: true},
		{name: "lower-case scheme", path: usersPath, auth: "bearer " + tok, apiKey: e.in.ClientID, status: 200, reachesNext: true},
		{name: "no token", path: usersPath, apiKey: e.in.ClientID, status: 401, wwwAuthHeader: true},
		{name: "basic auth", path: usersPath, auth: "Basic dXNlcjpwdw==", apiKey: e.in.ClientID, status: 401, wwwAuthHeader: true},
		{name: "garbage token", path: usersPath, auth: "Bearer eyJub3Q", apiKey: e.in.ClientID, status: 401, wwwAuthHeader: true},
		{name: "token of another server", path: usersPath, auth: "Bearer " + foreign, apiKey: e.in.ClientID, status: 401, wwwAuthHeader: true},
		{name: "certificate expired", path: usersPath, auth: "Bearer " + expiredTok, apiKey: expired.ClientID, status: 400, wantResult: umwire.ResultError},
		{name: "no API key", path: usersPath, auth: "Bearer " + tok, status: 403},
		{name: "API key of another client", path: usersPath, auth: "Bearer " + tok, apiKey: expired.ClientID, status: 403},
		{name: "other organization", path: umwire.BasePath + "/action/" + otherOrg, auth: "Bearer " + tok, apiKey: e.in.ClientID, status: 401, wwwAuthHeader: true},
		{name: "malformed organization", path: umwire.BasePath + "/users/acme/0", auth: "Bearer " + tok, apiKey: e.in.ClientID, status: 400, wantResult: umwire.ErrOrgInvalidID},
		{name: "unknown path passes auth to next", path: umwire.BasePath + "/nothing", auth: "Bearer " + tok, apiKey: e.in.ClientID, status: 200, reachesNext: true},
		{name: "unknown path needs a token", path: umwire.BasePath + "/nothing", apiKey: e.in.ClientID, status: 401, wwwAuthHeader: true},
		{name: "admin path bypasses the gate", path: "/admin/anything", status: 200, reachesNext: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := e.apiRequest(http.MethodGet, tt.path, "", tt.apiKey)
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			before := e.calls.Load()
			resp := e.do(req)
			checkAnswer(t, resp, tt.status, tt.wantResult, tt.reachesNext)
			if reached := e.calls.Load() > before; reached != tt.reachesNext {
				t.Errorf("API handler called: %v, want %v", reached, tt.reachesNext)
			}
			if got := resp.header.Get("WWW-Authenticate"); (got == umwire.WWWAuthenticateInvalid) != tt.wwwAuthHeader {
				t.Errorf("WWW-Authenticate %q, want it set: %v", got, tt.wwwAuthHeader)
			}
		})
	}
	st := e.gate.Stats()
	if st.Count(EndpointUsers, 401) != 4 || st.Count(EndpointUsers, 403) != 2 || st.Count(EndpointAction, 401) != 1 {
		t.Errorf("stats %v: want users 401×4, 403×2, action 401×1", st.Requests)
	}
	if _, ok := st.Requests["/admin/anything"]; ok || len(st.Requests[EndpointOther]) != 2 {
		t.Errorf("stats %v: want 2 answers under %q and no admin path", st.Requests, EndpointOther)
	}
}

// checkAnswer checks the status and body of an answer: the fake API
// handler's body, a JSON error with result wantResult, or an empty body.
func checkAnswer(t *testing.T, resp response, status int, wantResult string, fromNext bool) {
	t.Helper()
	if resp.status != status {
		t.Fatalf("status %d, want %d (body %q)", resp.status, status, resp.body)
	}
	switch {
	case fromNext:
		if resp.body != `{"ok":true}` {
			t.Errorf("body %q, want the API handler's", resp.body)
		}
	case wantResult == "":
		if resp.body != "" {
			t.Errorf("body %q, want empty", resp.body)
		}
	default:
		var eb umwire.ErrorBody
		if err := json.Unmarshal([]byte(resp.body), &eb); err != nil || eb.Result != wantResult || eb.Message == "" {
			t.Errorf("body %q (%v), want result %q with a message", resp.body, err, wantResult)
		}
	}
}

func TestMigrating(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.Migrating = true })
	tok := e.token(e.in)
	for _, path := range []string{usersPath, umwire.BasePath + "/action/" + testOrg, umwire.BasePath + "/" + testOrg + "/products/"} {
		resp := e.do(e.apiRequest(http.MethodGet, path, tok, e.in.ClientID))
		checkAnswer(t, resp, http.StatusForbidden, "", false)
	}
	if e.calls.Load() != 0 {
		t.Errorf("API handler called %d times while migrating", e.calls.Load())
	}
}

func TestRequestIDEchoed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.Limits = Limits{Read: 1} })
	tok := e.token(e.in)
	tests := []struct {
		name   string
		req    func() *http.Request
		status int
	}{
		{"200", func() *http.Request { return e.apiRequest(http.MethodGet, usersPath, tok, e.in.ClientID) }, 200},
		{"429", func() *http.Request { return e.apiRequest(http.MethodGet, usersPath, tok, e.in.ClientID) }, 429},
		{"401", func() *http.Request { return e.apiRequest(http.MethodGet, usersPath, "", e.in.ClientID) }, 401},
		{"403", func() *http.Request { return e.apiRequest(http.MethodGet, usersPath, tok, "") }, 403},
		{"400", func() *http.Request {
			return e.apiRequest(http.MethodGet, umwire.BasePath+"/users/x/0", tok, e.in.ClientID)
		}, 400},
		{"token 405", func() *http.Request { return e.apiRequest(http.MethodGet, umwire.PathJWTExchange, "", "") }, 405},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req()
			const id = "req-42 /ümlaut"
			req.Header.Set(umwire.HeaderRequestID, id)
			resp := e.do(req)
			if resp.status != tt.status || resp.header.Get(umwire.HeaderRequestID) != id {
				t.Errorf("%d %s=%q, want %d and the id echoed", resp.status, umwire.HeaderRequestID,
					resp.header.Get(umwire.HeaderRequestID), tt.status)
			}
		})
	}
}

func TestCertificatePastNotAfterCountsAsExpired(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.clock.now = time.Now().AddDate(11, 0, 0) // NewTestIntegration certificates last ten years
	checkAnswer(t, e.get(usersPath, e.token(e.in)), http.StatusBadRequest, umwire.ResultError, false)
}
