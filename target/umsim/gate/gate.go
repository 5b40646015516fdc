// Package gate is the front door of the User Management Service simulator
// (target/umsim). It serves the two token endpoints itself and stands in
// front of the simulator's API handler for every request under
// umwire.BasePath: authentication (access token, X-Api-Key, organization),
// rate limits, fault injection and request statistics, as the
// specification's "Authentication", "Errors" and "Limits" sections and
// contract sections 1 and 8 say.
//
// Checks on an API request run in this order; the first that fails answers:
//
//  1. Authorization missing, not a Bearer token, unknown, or expired: 401
//     with WWW-Authenticate and an empty body.
//  2. The token's integration has an expired certificate: 400.
//  3. X-Api-Key missing or not the client_id the token was issued to: 403,
//     empty body.
//  4. The orgId in the path is malformed: 400 error.organization.invalid_id;
//     it is not the token's organization: 401 as in 1.
//  5. The organization is migrating: 403, empty body.
//  6. Rate limits: 429 (rejected requests do not count toward a window).
//  7. Injected faults: drop, 500/503, or (actions only) ambiguous failure.
//  8. The API handler.
//
// Injected latency is waited, and a request drawn to hang is held, before
// step 1. Requests outside the token
// endpoints and umwire.BasePath (for example the simulator's admin
// endpoints) go to the API handler untouched and are not counted.
package gate

import (
	"context"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/orgsync/orgsync/target/umwire"
)

// Integration is one service-account integration of the organization: the
// credentials a client uses at the token endpoints.
type Integration struct {
	// ClientID is also the API key (X-Api-Key) of the integration's requests.
	ClientID string
	// ClientSecret is checked by both token endpoints.
	ClientSecret string
	// TechnicalAccountID is the sub claim the JWT exchange expects.
	TechnicalAccountID string
	// CertificatePEM is the X.509 certificate (PEM) whose RSA public key
	// verifies the JWT of the exchange (RS256).
	CertificatePEM string
	// CertificateExpired makes API requests with this integration's tokens
	// answer 400, as if the certificate had expired. A certificate whose
	// NotAfter lies before the gate's clock counts as expired too.
	CertificateExpired bool
}

// Limits are the rate limits of contract section 8. A zero limit means no
// limit; requests are still counted for the peaks of Stats.
type Limits struct {
	// Read is the limit per access token, counting endpoints 1-3.
	Read int
	// App is the limit per API key, counting every API request.
	App int
	// Window is the sliding window length; 0 means 60 s.
	Window time.Duration
}

// Faults configures fault injection. Rates are fractions in [0, 1]; a
// decision is drawn for every API request that passed authentication and
// rate limits, in the order drop, error, ambiguous (actions only); the
// three rates must not add up to more than 1 (see Validate).
type Faults struct {
	// Seed seeds the decisions: the same seed and the same sequence of
	// requests give the same sequence of decisions.
	Seed int64
	// ErrorRate is the fraction of API requests answered 500 or 503 (half
	// each) without reaching the API handler.
	ErrorRate float64
	// AmbiguousRate is the fraction of action requests that the API handler
	// applies and whose answer is then replaced by a 500 or a dropped
	// connection (half each).
	AmbiguousRate float64
	// DropRate is the fraction of API requests whose connection is closed
	// without an answer.
	DropRate float64
	// Latency is added to every API request.
	Latency time.Duration
	// HangRate is the fraction of API requests that are accepted and never
	// answered: the gate holds each until its client gives up (or the
	// server closes). It is drawn apart from the rates above.
	HangRate float64
	// CutRate is the fraction of API requests that are served in full (an
	// action is applied) and whose answer is cut in the middle of its
	// body: the status line, the headers and half the body are sent, then
	// the connection is closed. It is drawn apart from the rates above,
	// for the requests those leave alone.
	CutRate float64
	// HangAll holds every request, at the token endpoints too, unanswered:
	// a service that accepts connections and never answers (a hung proxy,
	// a firewall that black-holes, an overloaded service).
	HangAll bool
}

// Config configures a Gate.
type Config struct {
	// OrgID is the organization the simulator serves (<hex>@VendorOrg).
	OrgID string
	// Migrating makes every API request answer 403 (organization migrating).
	Migrating bool
	// Integrations are the credentials accepted by the token endpoints.
	Integrations []Integration
	// TokenLifetime is the access tokens' lifetime; 0 means 24 h.
	TokenLifetime time.Duration
	// Limits are the rate limits.
	Limits Limits
	// Faults are the faults injected from the start (see Gate.SetFaults).
	Faults Faults
	// Clock gives the time for token expiry and rate-limit windows; nil
	// means time.Now.
	Clock func() time.Time
}

// Gate is an http.Handler that authenticates, limits, disturbs and counts
// the requests to the simulator's API handler. It is safe for concurrent
// use.
type Gate struct {
	orgID        string
	migrating    bool
	clock        func() time.Time
	integrations map[string]*integration
	tokens       *tokenIssuer
	limiter      *limiter
	faults       *faultSource
	stats        *statsRecorder
	next         http.Handler
}

// New validates cfg (parsing the certificates), applies its defaults and
// returns a Gate in front of next. All problems of cfg are reported at once.
func New(cfg Config, next http.Handler) (*Gate, error) {
	ints, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	clock := cfg.Clock
	if clock == nil {
		clock = time.Now
	}
	lifetime := cfg.TokenLifetime
	if lifetime == 0 {
		lifetime = defaultTokenLifetime
	}
	tokens, err := newTokenIssuer(lifetime)
	if err != nil {
		return nil, err
	}
	return &Gate{
		orgID:        cfg.OrgID,
		migrating:    cfg.Migrating,
		clock:        clock,
		integrations: ints,
		tokens:       tokens,
		limiter:      newLimiter(cfg.Limits),
		faults:       newFaultSource(cfg.Faults),
		stats:        newStatsRecorder(),
		next:         next,
	}, nil
}

// Stats returns a copy of the request statistics.
func (g *Gate) Stats() Stats { return g.stats.snapshot() }

// ResetStats clears the request statistics (not the rate-limit windows).
func (g *Gate) ResetStats() { g.stats.reset() }

// SetFaults replaces the injected faults and reseeds the decisions with
// f.Seed. Rates outside [0, 1] are clamped; when they add up to more than
// 1, the later kinds (see Faults) get what is left.
func (g *Gate) SetFaults(f Faults) { g.faults.set(f) }

// ServeHTTP serves the token endpoints, guards the API endpoints and passes
// every other request to the API handler.
func (g *Gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if id := r.Header.Get(umwire.HeaderRequestID); id != "" {
		w.Header().Set(umwire.HeaderRequestID, id)
	}
	switch {
	case tokenPath(r.URL.Path) != "" && g.faults.hangsAll():
		g.hold(r, EndpointToken)
	case tokenPath(r.URL.Path) != "":
		rec := &statusRecorder{ResponseWriter: w}
		g.serveToken(rec, r)
		g.stats.record(EndpointToken, rec.code())
	case r.URL.Path == umwire.BasePath || strings.HasPrefix(r.URL.Path, umwire.BasePath+"/"):
		g.serveAPI(w, r)
	default:
		g.next.ServeHTTP(w, r)
	}
}

// tokenPath names the token endpoint of path (umwire.PathJWTExchange or
// umwire.PathClientCredentials), with or without a trailing slash (the
// vendor's Python client posts to "/ims/exchange/jwt/"); "" when path is
// neither.
func tokenPath(path string) string {
	switch p := strings.TrimSuffix(path, "/"); p {
	case umwire.PathJWTExchange, umwire.PathClientCredentials:
		return p
	}
	return ""
}

// serveAPI runs the checks of the package comment and records the outcome.
func (g *Gate) serveAPI(w http.ResponseWriter, r *http.Request) {
	ep := classify(r.URL.Path)
	if g.faults.hangs() {
		g.hold(r, ep.name)
		return
	}
	if !g.delay(r.Context()) {
		g.stats.record(ep.name, StatusClientGone)
		return
	}
	rec := &statusRecorder{ResponseWriter: w}
	if drop := g.handleAPI(rec, r, ep); drop {
		g.stats.record(ep.name, StatusDropped)
		dropConnection(w)
		return
	}
	g.stats.record(ep.name, rec.code())
}

// handleAPI answers one API request, or reports that its connection must
// be dropped instead.
func (g *Gate) handleAPI(w http.ResponseWriter, r *http.Request, ep endpoint) (drop bool) {
	s, ok := g.authorize(w, r, ep)
	if !ok {
		return false
	}
	r = r.WithContext(context.WithValue(r.Context(), clientKey{}, s.clientID))
	if !g.admit(w, s, ep) {
		return false
	}
	return g.serveWithFaults(w, r, ep)
}

// clientKey is the context key of the client id of an authorized request.
type clientKey struct{}

// ClientID returns the client id (API key) of the integration whose token
// authorized r, for the API handler behind the gate; "" outside it.
func ClientID(r *http.Request) string {
	id, _ := r.Context().Value(clientKey{}).(string)
	return id
}

// hold keeps a request unanswered until its client gives up or the server
// closes.
func (g *Gate) hold(r *http.Request, endpoint string) {
	g.stats.fault(FaultHang)
	// The server notices the client leave only once the body is read.
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, maxHeldBody))
	<-r.Context().Done()
	g.stats.record(endpoint, StatusClientGone)
}

// maxHeldBody bounds what hold reads of a held request's body.
const maxHeldBody = 1 << 20

// delay waits the injected latency; it reports false when the client left
// meanwhile.
func (g *Gate) delay(ctx context.Context) bool {
	d := g.faults.latency()
	if d <= 0 {
		return true
	}
	g.stats.fault(FaultLatency)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
