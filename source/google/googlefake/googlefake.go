// Package googlefake is a fake Google Workspace domain: the OAuth 2.0
// token endpoint of service accounts (the JWT bearer grant, with
// domain-wide delegation to an impersonated user) and the Admin SDK
// Directory API calls the google source makes (users.list, groups.list,
// groups.get, members.list), over real HTTP. It behaves as Google
// documents: pageToken paging with maxResults (and its maxima), partial
// responses by the fields parameter (400 on an invalid field selection),
// projection and customFieldMask for custom schemas, the JSON error body
// {"error": {"code", "message", "errors": [{"domain", "reason"}]}}, 403
// for a token without the scope or an impersonated user who is not an
// administrator, 401 unauthorized_client at the token endpoint for a
// client without domain-wide delegation of the scopes asked for, and
// refusals of an assertion that is expired, for another audience, badly
// signed or replayed. Throttling (429 rateLimitExceeded and 403
// userRateLimitExceeded) and faults are injected on request. The tests
// and `orgsync demo --source google` use it; no test reaches Google.
package googlefake

import (
	"crypto/rsa"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/orgsync/orgsync/source/internal/fakeapi"
)

// User is one user of the domain.
type User struct {
	ID, PrimaryEmail, GivenName, FamilyName string
	OrgUnitPath                             string // default "/"
	Country                                 string // the primary address's countryCode
	Suspended, Archived, IsAdmin            bool
	// CustomSchemas holds the user's custom schema values by schema and
	// field name.
	CustomSchemas map[string]map[string]any
}

// Group is one group; Members are the ids of its users and groups.
type Group struct {
	ID, Email, Name string
	Members         []string
}

// ServiceAccount is a service account with one key.
type ServiceAccount struct {
	Email, ClientID, KeyID string
	Key                    *rsa.PublicKey
}

// Domain is the fake Google Workspace account.
type Domain struct {
	CustomerID string // e.g. C0123abcd; "my_customer" stands for it
	Name       string // the primary domain, e.g. example.com
	Accounts   []ServiceAccount
	// Delegation is domain-wide delegation as the Admin console holds
	// it: the scopes each client id may ask for on behalf of a user.
	Delegation map[string][]string
	Schemas    []string // the custom schemas' names
	Users      []User
	Groups     []Group
}

// Options are the fake's behaviour beyond the data.
type Options struct {
	// ThrottleEvery answers every n-th API request as throttled: 429
	// rateLimitExceeded and 403 userRateLimitExceeded in turn; 0 never.
	ThrottleEvery int
	// Faults answers API request n (1-based) with status Faults[n], or
	// drops the connection when it is 0.
	Faults map[int]int
}

// Server is a running fake.
type Server struct {
	URL    string
	srv    *httptest.Server
	dom    Domain
	users  map[string]*User // by id and by primary email
	groups map[string]*Group
	tokens fakeapi.Tokens
	gate   *fakeapi.Gate

	mu       sync.Mutex
	used     map[string]bool // assertions (their jti) seen
	throttle int
	lists    map[string][]item // listings by path and query, computed once
}

// Start serves dom on a loopback port until Close.
func Start(dom Domain, o Options) *Server {
	s := &Server{dom: dom, users: map[string]*User{}, groups: map[string]*Group{}, used: map[string]bool{}, lists: map[string][]item{}}
	for i := range dom.Users {
		u := &dom.Users[i]
		s.users[u.ID], s.users[strings.ToLower(u.PrimaryEmail)] = u, u
	}
	for i := range dom.Groups {
		g := &dom.Groups[i]
		s.groups[g.ID], s.groups[strings.ToLower(g.Email)] = g, g
	}
	s.gate = &fakeapi.Gate{ThrottleEvery: o.ThrottleEvery, Faults: o.Faults, Throttle: s.throttled,
		Error: func(w http.ResponseWriter, status int) {
			writeError(w, status, "backendError", "Service unavailable. Please try again")
		},
	}
	api := s.gate.Wrap(http.HandlerFunc(s.api))
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == tokenPath {
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

// TokenURL is the address of the token endpoint.
func (s *Server) TokenURL() string { return s.URL + tokenPath }

// Stats returns the counts of API requests (the token endpoint is not
// counted).
func (s *Server) Stats() fakeapi.Stats { return s.gate.Stats() }

// throttled answers a throttled request: 429 rateLimitExceeded and 403
// userRateLimitExceeded in turn, both of which the Directory API sends.
func (s *Server) throttled(w http.ResponseWriter) {
	s.mu.Lock()
	s.throttle++
	n := s.throttle
	s.mu.Unlock()
	if n%2 == 1 {
		writeError(w, http.StatusTooManyRequests, "rateLimitExceeded", "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute' of service 'admin.googleapis.com'.")
		return
	}
	writeError(w, http.StatusForbidden, "userRateLimitExceeded", "User Rate Limit Exceeded")
}

// writeError writes a Google API error answer.
func writeError(w http.ResponseWriter, status int, reason, message string) {
	fakeapi.WriteJSON(w, status, map[string]any{"error": map[string]any{
		"code": status, "message": message,
		"errors": []any{map[string]any{"message": message, "domain": "global", "reason": reason}},
	}})
}
