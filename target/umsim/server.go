// Package umsim is a complete, strict implementation of the User Management
// Service as docs/service.md describes it (docs/simulator.md gives its
// choices where that leaves one): the simulator every other test of orgsync runs against, and
// the engine of `orgsync sim`. Server is an http.Handler over an in-memory,
// indexed State; authentication, rate limits, fault injection and request
// statistics are done by its front door, package gate.
//
// Besides the service's endpoints the Server answers a few admin endpoints
// of its own under /_sim/ (not authenticated):
//
//	POST /_sim/invites/{email}/accept   accept a pending invite
//	GET  /_sim/state                    the current State as JSON
package umsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/orgsync/orgsync/target/umsim/gate"
	"github.com/orgsync/orgsync/target/umwire"
)

// Options tune a Server; the zero value gives the service's documented
// defaults.
type Options struct {
	PageSize       int           // users per listing page; default 2000
	InvitePageSize int           // invites per call; default 200
	InviteExpiry   time.Duration // default 30 days
	// ResendExpired makes resend and revoke act on an expired invite as on
	// a pending one (resending makes it pending again), as a service that
	// keeps expired invites might. The default answers them 404
	// invites.pending.not_found: the specification defines both on a
	// pending invite and has no transition out of expired.
	ResendExpired bool
	TokenLifetime time.Duration // access tokens' lifetime; default 24 h
	Limits        gate.Limits   // rate limits (contract 8); zero: none
	Faults        gate.Faults   // injected faults from the start
	Clock         func() time.Time
}

// defaults fills in the options left zero.
func (o *Options) defaults() {
	if o.PageSize <= 0 {
		o.PageSize = umwire.MaxUsersPerPage
	}
	if o.InvitePageSize <= 0 {
		o.InvitePageSize = umwire.MaxInvitesPerCall
	}
	if o.InviteExpiry <= 0 {
		o.InviteExpiry = 30 * 24 * time.Hour
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
}

// Server is the simulated service. It is safe for concurrent use: one
// mutex serializes access to the state, and the entries of an action
// request run in their listed order.
type Server struct {
	mu   sync.Mutex
	st   *store
	opts Options
	gate *gate.Gate // in front of serveAPI
}

// New serves st (which it does not keep; later changes to st have no
// effect). It fails, listing every problem, when st is inconsistent.
func New(st *State, opts Options) (*Server, error) {
	s, probs := build(st)
	if len(probs) > 0 {
		return nil, probs.err()
	}
	opts.defaults()
	srv := &Server{st: s, opts: opts}
	g, err := gate.New(gateConfig(st, opts), http.HandlerFunc(srv.serveAPI))
	if err != nil {
		return nil, fmt.Errorf("umsim: %w", err)
	}
	srv.gate = g
	return srv, nil
}

// gateConfig is the gate's configuration for the state's organization and
// integrations.
func gateConfig(st *State, opts Options) gate.Config {
	cfg := gate.Config{
		OrgID: st.Org.ID, Migrating: st.Org.Migrating, TokenLifetime: opts.TokenLifetime,
		Limits: opts.Limits, Faults: opts.Faults, Clock: opts.Clock,
	}
	for _, in := range st.Integrations {
		cfg.Integrations = append(cfg.Integrations, gate.Integration{
			ClientID: in.ClientID, ClientSecret: in.ClientSecret, TechnicalAccountID: in.TechnicalAccountID,
			CertificatePEM: in.Certificate, CertificateExpired: in.CertificateExpired,
		})
	}
	return cfg
}

// OrgID returns the id of the organization the server serves.
func (s *Server) OrgID() string { return s.st.orgID }

// Stats returns the request statistics of the gate.
func (s *Server) Stats() gate.Stats { return s.gate.Stats() }

// SetFaults replaces the injected faults (see gate.Gate.SetFaults).
func (s *Server) SetFaults(f gate.Faults) { s.gate.SetFaults(f) }

// ServeHTTP answers the token endpoints, the service's endpoints (through
// the gate) and the simulator's admin endpoints. X-Request-Id is echoed on
// every response.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if id := r.Header.Get(umwire.HeaderRequestID); id != "" {
		w.Header().Set(umwire.HeaderRequestID, id)
	}
	if strings.HasPrefix(r.URL.Path, adminPrefix) {
		s.serveAdmin(w, r)
		return
	}
	s.gate.ServeHTTP(w, r)
}

// Snapshot returns a deep copy of the current state.
func (s *Server) Snapshot() *State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.snapshot()
}

// segments splits the escaped path after prefix into unescaped segments;
// ok is false when the path is outside prefix or badly escaped.
func segments(r *http.Request, prefix string) ([]string, bool) {
	p := r.URL.EscapedPath()
	if !strings.HasPrefix(p, prefix+"/") {
		return nil, false
	}
	parts := strings.Split(p[len(prefix)+1:], "/")
	for i, part := range parts {
		v, err := url.PathUnescape(part)
		if err != nil {
			return nil, false
		}
		parts[i] = v
	}
	return parts, true
}

// serveAPI routes a request under umwire.BasePath that the gate let
// through (authenticated, for our organization, within the limits).
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	seg, ok := segments(r, umwire.BasePath)
	var route route
	if ok {
		route, ok = s.route(seg)
	}
	if !ok {
		writeError(w, r, http.StatusNotFound, umwire.ResultError, "no such endpoint")
		return
	}
	if route.method != "" && r.Method != route.method {
		w.Header().Set("Allow", route.method)
		msg := "method " + r.Method + " not allowed, use " + route.method
		if route.invite {
			writeInviteError(w, http.StatusMethodNotAllowed, umwire.InviteBadRequest, msg)
		} else {
			writeError(w, r, http.StatusMethodNotAllowed, umwire.ResultError, msg)
		}
		return
	}
	route.serve(w, r)
}

// route is one endpoint matched from a path.
type route struct {
	method string // "" when serve checks the method itself
	serve  http.HandlerFunc
	invite bool // an invite endpoint: errors have the invite body
}

// route matches the path segments after umwire.BasePath. Only the
// specification's exact shapes match: endpoint 1 has no trailing slash,
// the invite and product listings have one (see docs/simulator.md, conformance
// notes).
func (s *Server) route(seg []string) (route, bool) {
	n := len(seg)
	switch {
	case n == 3 && seg[0] == "users":
		return route{method: http.MethodGet, serve: func(w http.ResponseWriter, r *http.Request) { s.listOrgUsers(w, r, seg[2]) }}, true
	case n == 4 && seg[0] == "users":
		return route{method: http.MethodGet, serve: func(w http.ResponseWriter, r *http.Request) { s.listGroupUsers(w, r, seg[2], seg[3]) }}, true
	case n == 3 && seg[0] == "groups":
		return route{method: http.MethodGet, serve: func(w http.ResponseWriter, r *http.Request) { s.listGroups(w, r, seg[2]) }}, true
	case n == 4 && seg[0] == "organizations" && seg[2] == "users":
		return route{method: http.MethodGet, serve: func(w http.ResponseWriter, r *http.Request) { s.getUser(w, r, seg[3]) }}, true
	case n == 4 && seg[0] == "organizations" && seg[2] == "invites":
		return route{method: http.MethodGet, serve: func(w http.ResponseWriter, r *http.Request) { s.queryInvites(w, r, seg[3]) }, invite: true}, true
	case n == 2 && seg[0] == "action":
		return route{method: http.MethodPost, serve: s.actions}, true
	case n == 2 && seg[1] == "users":
		return route{method: http.MethodGet, serve: s.listAllUsers}, true
	case n == 3 && seg[2] == "" && seg[1] == "products":
		return route{method: http.MethodGet, serve: s.listProducts}, true
	case n == 3 && seg[2] == "" && seg[1] == "invites":
		return route{method: http.MethodGet, serve: s.listInvites, invite: true}, true
	case n == 3 && seg[1] == "invites":
		return s.inviteRoute(seg[2]), true
	}
	return route{}, false
}

// writeJSON writes v as the JSON body of a code answer.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError writes the error body of the current endpoints.
func writeError(w http.ResponseWriter, r *http.Request, code int, result, msg string) {
	if code == http.StatusNotFound {
		w.Header().Set(umwire.HeaderCanonical, r.URL.EscapedPath())
	}
	writeJSON(w, code, umwire.ErrorBody{Result: result, Message: msg})
}

func writeInviteError(w http.ResponseWriter, code int, status, msg string) {
	writeJSON(w, code, umwire.InviteError{Status: status, StatusMessage: msg})
}
