// Package oktafake is a fake Okta organization: the org authorization
// server's token endpoint (client credentials with a private-key JWT) and
// the Management API calls the okta source makes (users, groups, a
// group's users), over real HTTP, with API tokens (SSWS), search
// expressions (eq clauses joined by and/or), DPoP (RFC 9449) for apps
// that require it (proofs verified, nonces, tokens bound to a key), limit, paging by the Link
// header's rel="next", the X-Rate-Limit-* headers of a rate-limit window,
// throttling (429) and injected faults. The tests and `orgsync demo
// --source okta` use it; no test reaches Okta.
package oktafake

import (
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/orgsync/orgsync/source/internal/fakeapi"
)

// User is one user: id, status (ACTIVE, SUSPENDED, ...) and profile
// attributes (login, email, firstName, lastName, countryCode, ...).
type User struct {
	ID, Status string
	Profile    map[string]any
}

// Group is one group with the ids of its users.
type Group struct {
	ID, Name string
	Members  []string
	// Type is OKTA_GROUP (when empty), APP_GROUP (imported from an app)
	// or BUILT_IN (Everyone): a real organization has all three.
	Type string
	// SearchLag is how many searches by name miss the group before it
	// shows: Okta's search is eventually consistent, and a group created
	// moments ago may not be found yet (a read by id finds it).
	SearchLag int
}

// App is an API service app that signs in with a private-key JWT.
type App struct {
	ClientID string
	Key      *rsa.PublicKey
	Scopes   []string // granted scopes
	// RequireDPoP refuses token requests without a valid DPoP proof, as
	// a service app with "Require Demonstrating Proof of Possession (DPoP)
	// header in token requests" does, and issues DPoP tokens bound to the
	// proof's key, which the API takes only with a proof.
	RequireDPoP bool
}

// Org is the fake organization.
type Org struct {
	APITokens []string // valid SSWS tokens
	Apps      []App
	Users     []User
	Groups    []Group
}

// Options are the fake's behaviour beyond the data.
type Options struct {
	// ThrottleEvery answers every n-th API request 429; 0 never does.
	ThrottleEvery int
	// WindowLimit is the requests allowed each second (the rate-limit
	// window of the X-Rate-Limit-* headers); 0 is unlimited.
	WindowLimit int
	// Faults answers API request n (1-based) with status Faults[n], or
	// drops the connection when it is 0.
	Faults map[int]int
	// DPoPNonceEvery makes the API ask for a new DPoP nonce every n
	// requests made with a DPoP token (the one before stays good); 0
	// never asks.
	DPoPNonceEvery int
	// Now is the fake's clock (nil: the wall clock): its rate-limit
	// windows and the Date of its answers. Tests give the client the same
	// (restapitest.Clock), so that waiting for a window costs nothing.
	Now func() time.Time
	// TokenFaults answers token request n (1-based) with status
	// TokenFaults[n] (429 or a server error) after its client assertion
	// was read: the assertion's jti is then used.
	TokenFaults map[int]int
}

// Server is a running fake.
type Server struct {
	URL    string
	srv    *httptest.Server
	org    Org
	opts   Options
	users  map[string]*User
	groups map[string]*Group
	tokens fakeapi.Tokens
	gate   *fakeapi.Gate
	dpop   dpop

	mu     sync.Mutex
	window int64 // the current window (Unix second)
	used   int   // requests in it
	// lists caches each listing after its search (the org does not
	// change), by path and search expression.
	lists map[string][]object
	// jtis are the client assertions' ids seen at the token endpoint;
	// tokenRequests counts the requests it answered.
	jtis          map[string]bool
	tokenRequests int
}

// Start serves org on a loopback port until Close.
func Start(org Org, o Options) *Server {
	s := &Server{org: org, opts: o, users: map[string]*User{}, groups: map[string]*Group{}, lists: map[string][]object{}, jtis: map[string]bool{}}
	for i := range org.Users {
		s.users[org.Users[i].ID] = &org.Users[i]
	}
	for i := range org.Groups {
		s.groups[org.Groups[i].ID] = &org.Groups[i]
	}
	s.gate = &fakeapi.Gate{ThrottleEvery: o.ThrottleEvery, Faults: o.Faults,
		Throttle: func(w http.ResponseWriter) {
			w.Header().Set("X-Rate-Limit-Remaining", "0")
			w.Header().Set("X-Rate-Limit-Reset", strconv.FormatInt(s.now().Unix()+1, 10))
			oktaError(w, http.StatusTooManyRequests, "E0000047", "API call exceeded rate limit due to too many requests.")
		},
		Error: func(w http.ResponseWriter, status int) { oktaError(w, status, "E0000009", "Internal Server Error") },
	}
	api := s.gate.Wrap(http.HandlerFunc(s.api))
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o.Now != nil {
			w.Header().Set("Date", o.Now().UTC().Format(http.TimeFormat))
		}
		if r.URL.Path == "/oauth2/v1/token" {
			s.token(w, r)
			return
		}
		api.ServeHTTP(w, r)
	}))
	s.URL = s.srv.URL
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// now is the time on the fake's clock.
func (s *Server) now() time.Time {
	if s.opts.Now != nil {
		return s.opts.Now()
	}
	return time.Now()
}

// Stats returns the counts of API requests (the token endpoint is not
// counted).
func (s *Server) Stats() fakeapi.Stats { return s.gate.Stats() }

func oktaError(w http.ResponseWriter, status int, code, summary string) {
	fakeapi.WriteJSON(w, status, map[string]any{"errorCode": code, "errorSummary": summary, "errorCauses": []any{}})
}

// rateLimit sets the X-Rate-Limit-* headers and reports whether the
// request is within the window's limit.
func (s *Server) rateLimit(w http.ResponseWriter) bool {
	if s.opts.WindowLimit == 0 {
		return true
	}
	now := s.now().Unix()
	s.mu.Lock()
	if now != s.window {
		s.window, s.used = now, 0
	}
	s.used++
	left := s.opts.WindowLimit - s.used
	s.mu.Unlock()
	h := w.Header()
	h.Set("X-Rate-Limit-Limit", strconv.Itoa(s.opts.WindowLimit))
	h.Set("X-Rate-Limit-Remaining", strconv.Itoa(max(left, 0)))
	h.Set("X-Rate-Limit-Reset", strconv.FormatInt(now+1, 10))
	return left >= 0
}

// authorized reports whether r carries a valid API token, or an access
// token (whose scopes are returned; an API token has all its
// administrator's rights): a DPoP token with a valid proof, a Bearer
// token not bound to a key. A refused DPoP use sets its challenge on w.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) (scopes []string, apiToken, ok bool) {
	auth := r.Header.Get("Authorization")
	if tok, ok := strings.CutPrefix(auth, "SSWS "); ok {
		return nil, true, slices.Contains(s.org.APITokens, tok)
	}
	if tok, ok := strings.CutPrefix(auth, "DPoP "); ok {
		scopes, ok = s.tokens.Grants(r, "DPoP")
		return scopes, false, ok && s.apiProof(w, r, tok)
	}
	scopes, ok = s.tokens.Grants(r, "Bearer")
	if jkt := s.dpop.boundTo(strings.TrimPrefix(auth, "Bearer ")); ok && jkt != "" {
		s.dpop.refused()
		w.Header().Set("WWW-Authenticate", `DPoP error="invalid_token", error_description="The access token is bound to a key: send it as DPoP with a proof"`)
		return nil, false, false
	}
	return scopes, false, ok
}

// apiProof checks the DPoP proof of an API request made with the DPoP
// access token tok: valid, bound to tok's key, with the API's nonce when
// it asks for one. When not, it sets the WWW-Authenticate challenge (and
// DPoP-Nonce) of the 401 answer.
func (s *Server) apiProof(w http.ResponseWriter, r *http.Request, tok string) bool {
	p, err := s.dpop.check(r, tok)
	if err == nil && p.jkt != s.dpop.boundTo(tok) {
		err = errors.New("The DPoP proof key is not the one the access token is bound to.")
	}
	if err != nil {
		s.dpop.refused()
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`DPoP error="invalid_dpop_proof", error_description=%q`, err.Error()))
		return false
	}
	if nonce, ok := s.dpop.apiNonceOK(p, s.opts.DPoPNonceEvery); !ok {
		w.Header().Set("DPoP-Nonce", nonce)
		w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof"`)
		return false
	}
	return true
}

// scopeOf is the OAuth 2.0 scope that reads each listing's objects.
var scopeOf = map[string]string{"users": "okta.users.read", "groups": "okta.groups.read"}

// api serves the Management API calls.
func (s *Server) api(w http.ResponseWriter, r *http.Request) {
	if !s.rateLimit(w) {
		s.gate.Reject(w)
		return
	}
	scopes, apiToken, ok := s.authorized(w, r)
	if !ok {
		oktaError(w, http.StatusUnauthorized, "E0000011", "Invalid token provided")
		return
	}
	parts := strings.Split(strings.Trim(strings.TrimPrefix(r.URL.Path, "/api/v1"), "/"), "/")
	if need, known := scopeOf[parts[0]]; known && !apiToken && !slices.Contains(scopes, need) {
		w.Header().Set("WWW-Authenticate", `Bearer authorization_uri="http://`+r.Host+`/oauth2/v1/authorize", realm="http://`+r.Host+`", scope="`+need+`", error="insufficient_scope", error_description="The access token provided does not contain the required scopes.", resource="`+r.URL.Path+`"`)
		oktaError(w, http.StatusForbidden, "E0000006", "You do not have permission to perform the requested action")
		return
	}
	switch {
	case r.Method != http.MethodGet:
		oktaError(w, http.StatusMethodNotAllowed, "E0000022", "The endpoint does not support the provided HTTP method")
	case len(parts) == 1 && parts[0] == "users":
		s.list(w, r, s.userObjects, 200)
	case len(parts) == 1 && parts[0] == "groups":
		s.list(w, r, s.groupObjects, 10000)
	case len(parts) == 2 && parts[0] == "groups":
		s.getGroup(w, parts[1])
	case len(parts) == 3 && parts[0] == "groups" && parts[2] == "users":
		s.groupUsers(w, r, parts[1])
	default:
		oktaError(w, http.StatusNotFound, "E0000022", "The endpoint does not support the provided HTTP method")
	}
}
