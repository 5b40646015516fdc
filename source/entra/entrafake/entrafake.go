// Package entrafake is a fake Microsoft Entra ID tenant: the token
// endpoint of the Microsoft identity platform (client credentials with a
// client secret, a certificate's client assertion, or a federated token
// checked against the app's federated credentials: issuer, subject and
// audience, signature and lifetime), the managed identity endpoints (the
// instance metadata service's and App Service's, with the headers each
// checks and the choice of identity), and the Microsoft
// Graph v1.0 calls the entra source makes (users, groups, a group's
// members and transitiveMembers), over real HTTP, with $select, $top,
// $filter (eq and startswith, joined by and), $count with
// ConsistencyLevel: eventual, paging by @odata.nextLink, throttling (429
// with Retry-After) and injected faults. The tests and `orgsync demo
// --source entra` use it; no test reaches Microsoft.
package entrafake

import (
	"cmp"
	"crypto/rsa"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/orgsync/orgsync/source/internal/fakeapi"
)

// User is one user: its id and its Graph properties (mail,
// userPrincipalName, givenName, surname, usageLocation, accountEnabled,
// userType, department, ...). A guest has userType Guest and a user
// principal name with #EXT#; a user without a mailbox has no mail.
type User struct {
	ID    string
	Props map[string]any
}

// Group is one group; Members are ids of users and of nested groups.
// HiddenMembership is a Microsoft 365 group whose members only
// Member.Read.Hidden may list.
type Group struct {
	ID, DisplayName  string
	Members          []string
	HiddenMembership bool
}

// Member is a directory object that is neither a user nor a group but
// may be a member of a group, as Graph lists them in members and
// transitiveMembers: a device, a service principal, an organizational
// contact.
type Member struct {
	ID, DisplayName string
	Kind            string // "device", "servicePrincipal", "orgContact"
}

// App is an app registration that may sign in: with Secret, with a
// client assertion signed by Certificate's key, or with a token of
// another issuer that one of its Federated credentials trusts (workload
// identity federation). Permissions are its Microsoft Graph application
// permissions (with admin consent); nil grants DefaultPermissions.
type App struct {
	ClientID    string
	Secret      string
	Certificate *x509.Certificate
	Federated   []FederatedCredential
	Permissions []string
}

// FederatedCredential is a federated identity credential of an app
// registration: it trusts the tokens of Issuer for Subject and
// Audience (default DefaultFederatedAudience), each compared exactly.
type FederatedCredential struct {
	Issuer, Subject, Audience string
}

// DefaultFederatedAudience is the audience Entra ID proposes for a
// federated credential, and AKS workload identity projects tokens for.
const DefaultFederatedAudience = "api://AzureADTokenExchange"

// ManagedIdentity is a managed identity of the machine or app the fake's
// identity endpoints serve: the system-assigned one, or a user-assigned
// one named by ClientID. Its Microsoft Graph application permissions
// are granted by PowerShell or the CLI (the portal cannot): nil grants
// none.
type ManagedIdentity struct {
	ClientID       string
	SystemAssigned bool
	Permissions    []string
}

// DefaultPermissions are those the entra source needs.
var DefaultPermissions = []string{"User.Read.All", "GroupMember.Read.All"}

// needs are the permissions, any of which allows reading users and
// groups (with their members), as Graph's reference lists them.
var needs = map[string][]string{
	"users":  {"User.Read.All", "User.ReadWrite.All", "Directory.Read.All", "Directory.ReadWrite.All"},
	"groups": {"GroupMember.Read.All", "Group.Read.All", "Group.ReadWrite.All", "Directory.Read.All", "Directory.ReadWrite.All"},
}

// Tenant is the fake directory: its id and verified Domains, either of
// which names it at the token endpoint.
type Tenant struct {
	ID      string
	Domains []string
	Apps    []App
	Users   []User
	Groups  []Group
	// Others are the members of groups that are not users or groups.
	Others []Member
	// Issuers are the OpenID Connect issuers the tenant can check tokens
	// of (the keys their discovery documents publish), by issuer URL.
	Issuers map[string]*rsa.PublicKey
	// Identities are the managed identities of the machine or app.
	Identities []ManagedIdentity
}

// Options are the fake's behaviour beyond the data.
type Options struct {
	// ThrottleEvery answers every n-th Graph request 429 (or
	// ThrottleStatus, e.g. 503) with Retry-After: RetryAfter seconds
	// (default 1); 0 never throttles.
	ThrottleEvery  int
	ThrottleStatus int
	RetryAfter     int
	// TokenLifetime is how long access tokens live (default one hour).
	TokenLifetime time.Duration
	// Faults answers Graph request n (1-based) with status Faults[n], or
	// drops the connection when it is 0.
	Faults map[int]int
	// IdentityHeader is the secret the App Service identity endpoint
	// checks (X-IDENTITY-HEADER), as IDENTITY_HEADER holds it.
	IdentityHeader string
	// IMDSUpdating answers the first token requests of the instance
	// metadata service with these statuses (404 or 410, as it answers
	// while it updates), one each, before it answers again.
	IMDSUpdating []int
}

// Server is a running fake.
type Server struct {
	URL    string // the login and Graph base URL
	srv    *httptest.Server
	tenant Tenant
	users  map[string]*User
	groups map[string]*Group
	tokens fakeapi.Tokens
	gate   *fakeapi.Gate
	// The objects as listed, built once: users, groups, and each as a
	// member (with its @odata.type) by id.
	userObjs, groupObjs []object
	memberObjs          map[string]object
	mu                  sync.Mutex
	memberLists         map[memberKey][]object
	imdsUpdating        []int // guarded by mu
	imdsRequests        int   // guarded by mu
}

// Start serves t on a loopback port until Close.
func Start(t Tenant, o Options) *Server {
	s := &Server{tenant: t, users: map[string]*User{}, groups: map[string]*Group{}, imdsUpdating: slices.Clone(o.IMDSUpdating)}
	s.tokens.Lifetime = o.TokenLifetime
	s.index()
	retryAfter := strconv.Itoa(max(o.RetryAfter, 1))
	throttle := cmp.Or(o.ThrottleStatus, http.StatusTooManyRequests)
	s.gate = &fakeapi.Gate{ThrottleEvery: o.ThrottleEvery, Faults: o.Faults,
		Throttle: func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", retryAfter)
			graphError(w, throttle, throttleCode[throttle], "Too many requests.")
		},
		Error: func(w http.ResponseWriter, status int) { graphError(w, status, "generalException", "Injected fault.") },
	}
	api := s.gate.Wrap(http.HandlerFunc(s.graph))
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tenant, ok := strings.CutSuffix(r.URL.Path, "/oauth2/v2.0/token"); ok {
			s.token(w, r, strings.TrimPrefix(tenant, "/"))
			return
		}
		if r.URL.Path == IMDSPath || r.URL.Path == AppServicePath {
			s.identity(w, r, o.IdentityHeader)
			return
		}
		api.ServeHTTP(w, r)
	}))
	s.URL = s.srv.URL
	return s
}

// index builds the lookups and the objects served.
func (s *Server) index() {
	s.memberObjs, s.memberLists = map[string]object{}, map[memberKey][]object{}
	for i := range s.tenant.Users {
		u := &s.tenant.Users[i]
		s.users[u.ID] = u
		s.userObjs = append(s.userObjs, u.object())
		s.memberObjs[u.ID] = typed(u.object(), "user")
	}
	for i := range s.tenant.Groups {
		g := &s.tenant.Groups[i]
		s.groups[g.ID] = g
		s.groupObjs = append(s.groupObjs, g.object())
		s.memberObjs[g.ID] = typed(g.object(), "group")
	}
	for _, m := range s.tenant.Others {
		s.memberObjs[m.ID] = typed(object{"id": m.ID, "displayName": m.DisplayName}, m.Kind)
	}
}

// throttleCode is Graph's error code of a throttled answer.
var throttleCode = map[int]string{http.StatusTooManyRequests: "TooManyRequests", http.StatusServiceUnavailable: "serviceNotAvailable"}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Stats returns the counts of Graph requests (the token endpoint is not
// counted).
func (s *Server) Stats() fakeapi.Stats { return s.gate.Stats() }

// graphError writes Microsoft Graph's error answer.
func graphError(w http.ResponseWriter, status int, code, msg string) {
	fakeapi.WriteJSON(w, status, map[string]any{"error": map[string]string{"code": code, "message": msg}})
}

// graph serves the Graph calls of an authorized request.
func (s *Server) graph(w http.ResponseWriter, r *http.Request) {
	grants, ok := s.tokens.Grants(r, "Bearer")
	if !ok {
		graphError(w, http.StatusUnauthorized, "InvalidAuthenticationToken", "Access token is empty or invalid.")
		return
	}
	if r.Method != http.MethodGet {
		graphError(w, http.StatusMethodNotAllowed, "Request_BadRequest", "Only GET is served.")
		return
	}
	q := r.URL.Query()
	if q.Get("$count") == "true" && !strings.EqualFold(r.Header.Get("ConsistencyLevel"), "eventual") {
		graphError(w, http.StatusBadRequest, "Request_UnsupportedQuery", "$count requires the ConsistencyLevel header set to eventual.")
		return
	}
	parts := strings.Split(strings.Trim(strings.TrimPrefix(r.URL.Path, "/v1.0"), "/"), "/")
	if need, known := needs[parts[0]]; known && !slices.ContainsFunc(need, func(p string) bool { return slices.Contains(grants, p) }) {
		graphError(w, http.StatusForbidden, "Authorization_RequestDenied", "Insufficient privileges to complete the operation.")
		return
	}
	switch {
	case len(parts) == 1 && parts[0] == "users":
		s.listUsers(w, r)
	case len(parts) == 1 && parts[0] == "groups":
		s.listGroups(w, r)
	case len(parts) == 2 && parts[0] == "groups":
		s.getGroup(w, r, parts[1])
	case len(parts) == 3 && parts[0] == "groups" && (parts[2] == "members" || parts[2] == "transitiveMembers"):
		s.listMembers(w, r, parts[1], parts[2] == "transitiveMembers", grants)
	default:
		graphError(w, http.StatusBadRequest, "BadRequest", "Resource not found for the segment '"+r.URL.Path+"'.")
	}
}
