// Package googlefake is a fake Google Workspace domain and the Google
// Cloud endpoints that sign in to it, over real HTTP, as Google documents
// them. Sign-in: the OAuth 2.0 token endpoint of service accounts (the
// JWT bearer grant, with domain-wide delegation to an impersonated user,
// or a service account that holds an admin role acting as itself; the
// audience must be Google's token URI; assertions expired, issued in the
// future, badly signed or replayed are refused), the metadata server
// (keyless.go: only with Metadata-Flavor: Google and never through a
// proxy), the Security Token Service (OIDC tokens of a provider's issuer
// for its allowed audiences, and AWS signed GetCallerIdentity requests:
// aws.go) and IAM Credentials (signJwt and generateAccessToken, for a
// token creator of the account with the cloud-platform scope). The Admin
// SDK Directory API calls of the google source (users.list, groups.list,
// groups.get by id, email or alias, members.list with nested groups, the
// whole account, external members, owners and suspended members):
// pageToken paging with maxResults (and its maxima), page tokens that
// expire (503 backendError), partial responses by the fields parameter
// (400 on an invalid field selection), projection and customFieldMask
// for custom schemas, the JSON error body {"error": {"code", "message",
// "errors": [{"domain", "reason"}]}}, 403 for a token without the scope,
// a subject who is not an administrator, a service account without an
// admin role, another domain's group, the API not enabled
// (accessNotConfigured) or API access off (domainCannotUseApis), a
// sustained per-minute quota with a limit of concurrent requests (403
// quotaExceeded). Throttling every n-th request and faults are injected
// on request. The tests and `orgsync demo --source google` use it; no
// test reaches Google.
package googlefake

import (
	"cmp"
	"crypto/rsa"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orgsync/orgsync/source/internal/fakeapi"
	"golang.org/x/time/rate"
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

// Group is one group; Members are the ids of its users and groups, or
// Customer (the whole account: every user), or the email of an external
// member (a user of another domain). Aliases are its other addresses;
// Owners and Managers are members whose role is OWNER or MANAGER.
type Group struct {
	ID, Email, Name string
	Aliases         []string
	Members         []string
	Owners          []string
	Managers        []string
}

// Customer is the member that stands for every user of the account (type
// CUSTOMER), as a group's member list has it.
const Customer = "CUSTOMER"

// ServiceAccount is a service account with one key of its own (from a
// key file; nil: none) and one that Google manages for it (signJwt signs
// with it).
type ServiceAccount struct {
	Email, ClientID, KeyID string
	Key                    *rsa.PublicKey
	managed                *rsa.PrivateKey
}

// managedKeyID is the kid of the key Google manages for the account.
func (a *ServiceAccount) managedKeyID() string { return "google-managed-" + a.ClientID }

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
	// AdminAccounts are the service accounts an administrator role is
	// assigned to: they read the directory as themselves, without
	// delegation, and must name the customer by its ID.
	AdminAccounts []string
	// TokenCreators are who may sign JWTs and get access tokens as each
	// service account (roles/iam.serviceAccountTokenCreator on it), by
	// its email: "serviceAccount:<email>" or a federated principal
	// "principal://iam.googleapis.com/<provider's pool>/subject/<sub>".
	TokenCreators map[string][]string
	// Providers are the workload identity pools' providers whose tokens
	// the Security Token Service exchanges.
	Providers []Provider
	// Issuers are the keys of the OpenID Connect issuers the providers
	// trust, by issuer URL.
	Issuers map[string]*rsa.PublicKey
	// AWSKeys are the AWS access keys the AWS providers check signed
	// requests with, by access key id.
	AWSKeys map[string]AWSKey
}

// Provider is a workload identity pool's provider: Name is
// "projects/<number>/locations/global/workloadIdentityPools/<pool>/providers/<provider>".
// An OIDC provider trusts the tokens of Issuer whose audience is one of
// AllowedAudiences (default "https://iam.googleapis.com/" + Name); an AWS
// provider (AWS) the signed GetCallerIdentity requests of AWSKeys, whose
// subject is the caller's ARN.
type Provider struct {
	Name, Issuer     string
	AllowedAudiences []string
	AWS              bool
}

// Pool is the provider's pool ("projects/.../workloadIdentityPools/<pool>").
func (p *Provider) Pool() string {
	pool, _, _ := strings.Cut(p.Name, "/providers/")
	return pool
}

// Principal is the federated principal of a token's subject sub.
func (p *Provider) Principal(sub string) string {
	return "principal://iam.googleapis.com/" + p.Pool() + "/subject/" + sub
}

// Options are the fake's behaviour beyond the data.
type Options struct {
	// ThrottleEvery answers every n-th API request as throttled: 429
	// rateLimitExceeded and 403 userRateLimitExceeded in turn; 0 never.
	ThrottleEvery int
	// Faults answers API request n (1-based) with status Faults[n], or
	// drops the connection when it is 0.
	Faults map[int]int
	// MetadataAccount is the service account the metadata server gives
	// tokens of (a GKE workload identity's, a VM's); "": the metadata
	// server answers 404.
	MetadataAccount string
	// MetadataScopes are the access scopes of a Compute Engine VM: its
	// metadata server gives tokens with these, whatever ?scopes= asks
	// for; nil gives the scopes asked for (GKE workload identity, Cloud
	// Run).
	MetadataScopes []string
	// APIDisabled answers every API call 403 accessNotConfigured: the
	// Admin SDK API is not enabled in the caller's project.
	APIDisabled bool
	// APIAccessOff answers every API call 403 domainCannotUseApis: the
	// Admin console's API access is off for the account.
	APIAccessOff bool
	// Quota is the sustained quota of API requests (0: none).
	Quota Quota
	// PageTokenLifetime is how long a page token is good for (default
	// one hour); an older one is answered 503 backendError.
	PageTokenLifetime time.Duration
}

// Quota is a sustained limit of API requests, as the Directory API's
// queries per minute per user: PerMinute a minute, counted over spans of
// Window (default a minute: a token bucket of PerMinute*Window/minute
// requests, refilled at PerMinute a minute); a request past it is
// throttled. Concurrent (0: any) is how many requests may be in flight
// at once: one more is answered 403 quotaExceeded.
type Quota struct {
	PerMinute  int
	Window     time.Duration
	Concurrent int
}

// Server is a running fake.
type Server struct {
	URL    string
	srv    *httptest.Server
	opts   Options
	dom    Domain
	quota  *rate.Limiter    // nil: none
	flying atomic.Int64     // API requests in flight
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
	s := &Server{opts: o, dom: dom, users: map[string]*User{}, groups: map[string]*Group{}, used: map[string]bool{}, lists: map[string][]item{}}
	if q := o.Quota; q.PerMinute > 0 {
		window := cmp.Or(q.Window, time.Minute)
		s.quota = rate.NewLimiter(rate.Limit(float64(q.PerMinute)/60), max(1, int(int64(q.PerMinute)*int64(window)/int64(time.Minute))))
	}
	for i := range dom.Users {
		u := &dom.Users[i]
		s.users[u.ID], s.users[strings.ToLower(u.PrimaryEmail)] = u, u
	}
	for i := range dom.Groups {
		g := &dom.Groups[i]
		s.groups[g.ID], s.groups[strings.ToLower(g.Email)] = g, g
		for _, a := range g.Aliases {
			s.groups[strings.ToLower(a)] = g
		}
	}
	s.gate = &fakeapi.Gate{ThrottleEvery: o.ThrottleEvery, Faults: o.Faults, Throttle: s.throttled,
		Error: func(w http.ResponseWriter, status int) {
			writeError(w, status, "backendError", "Service unavailable. Please try again")
		},
	}
	api := s.gate.Wrap(http.HandlerFunc(s.limited))
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case p == tokenPath:
			s.token(w, r)
		case p == STSPath:
			s.sts(w, r)
		case strings.HasPrefix(p, MetadataPath):
			s.metadata(w, r)
		case strings.HasPrefix(p, iamPrefix):
			s.iamCredentials(w, r)
		default:
			api.ServeHTTP(w, r)
		}
	}))
	s.URL = s.srv.URL
	return s
}

// limited serves an API request within the quota: past the concurrent
// requests, 403 quotaExceeded; past the sustained rate, throttled.
func (s *Server) limited(w http.ResponseWriter, r *http.Request) {
	n := s.flying.Add(1)
	defer s.flying.Add(-1)
	switch {
	case s.opts.Quota.Concurrent > 0 && n > int64(s.opts.Quota.Concurrent):
		s.gate.Rejected()
		writeError(w, http.StatusForbidden, "quotaExceeded", "Quota exceeded for too many concurrent requests.")
	case s.quota != nil && !s.quota.Allow():
		s.gate.Reject(w)
	default:
		s.api(w, r)
	}
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
