package umsim

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/orgsync/orgsync/target/umsim/gate"
	"github.com/orgsync/orgsync/target/umwire"
)

// Seed is a seed file of several organizations: orgs: a list of
// organizations, each with its own integrations, domains, products, groups
// and users.
type Seed struct {
	Orgs []SeedOrg `yaml:"orgs" json:"orgs"`
}

// SeedOrg is one organization of a Seed: its State and, when set, the rate
// limits it enforces instead of those of the Options
// (limits: {read: 25, app: 100, window: 1m}).
type SeedOrg struct {
	State  `yaml:",inline"`
	Limits *gate.Limits `yaml:"limits,omitempty" json:"limits,omitempty"`
}

// LoadSeed reads a seed file of one organization (as LoadState) or of
// several (orgs:, see Seed) and checks it, reporting every problem with its
// line. Organization ids and client ids must be unique across the
// organizations: a Multi routes by them.
func LoadSeed(path string) ([]SeedOrg, error) {
	data, root, err := readSeed(path)
	if err != nil {
		return nil, err
	}
	if child(root, "orgs") == nil {
		st, err := LoadState(path)
		if err != nil {
			return nil, err
		}
		return []SeedOrg{{State: *st}}, nil
	}
	var seed Seed
	if err := decodeStrict(data, &seed); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := seed.Orgs
	var probs problems
	for i := range out {
		st := &out[i].State
		if err := readCertificates(st, filepath.Dir(path)); err != nil {
			return nil, fmt.Errorf("%s: orgs[%d].%w", path, i, err)
		}
		_, p := build(st)
		for _, pr := range p {
			probs.add(pr.msg, append([]any{"orgs", i}, pr.path...)...)
		}
		if l := out[i].Limits; l != nil && (l.Read < 0 || l.App < 0 || l.Window < 0) {
			probs.add("limits must not be negative (0: no limit)", "orgs", i, "limits")
		}
	}
	probs = append(probs, checkAcross(out)...)
	if len(out) == 0 {
		probs.add("list at least one organization", "orgs")
	}
	if len(probs) > 0 {
		return nil, probs.withLines(path, root)
	}
	return out, nil
}

// checkAcross reports organization ids and client ids that two
// organizations share.
func checkAcross(seed []SeedOrg) problems {
	var probs problems
	orgs, clients := map[string]int{}, map[string]int{}
	for i := range seed {
		st := &seed[i].State
		id := strings.ToLower(st.Org.ID)
		if j, ok := orgs[id]; ok {
			probs.add(fmt.Sprintf("organization %s is already orgs[%d]", st.Org.ID, j), "orgs", i, "org", "id")
		}
		orgs[id] = i
		for k, in := range st.Integrations {
			if j, ok := clients[in.ClientID]; ok && j != i {
				probs.add(fmt.Sprintf("client id is already an integration of orgs[%d]: the simulator finds an organization's token requests by it", j),
					"orgs", i, "integrations", k, "clientID")
			}
			clients[in.ClientID] = i
		}
	}
	return probs
}

// Multi serves several organizations at one address, each a Server of its
// own with its own state, rate limits and statistics. It routes a request
// of the service by the orgId in its path, a token request by its client_id
// (each integration belongs to one organization), and the simulator's admin
// endpoints by /_sim/orgs/{orgId}/... (plain /_sim/... is the first
// organization's). What matches no organization goes to the first, which
// answers it as the service would (400 for a malformed id, 401 for another
// organization, invalid_client for an unknown client).
type Multi struct {
	servers  []*Server
	limits   []*gate.Limits     // each organization's own limits, from its seed
	byOrg    map[string]*Server // by lower-case org id
	byClient map[string]*Server
}

// NewMulti serves the organizations of seed, each with opts and its own
// limits when it has them; limits and faults apply to each organization
// separately.
func NewMulti(seed []SeedOrg, opts Options) (*Multi, error) {
	if probs := checkAcross(seed); len(probs) > 0 {
		return nil, probs.err()
	}
	m := &Multi{byOrg: map[string]*Server{}, byClient: map[string]*Server{}}
	for i := range seed {
		st, o := &seed[i].State, opts
		if l := seed[i].Limits; l != nil {
			o.Limits = *l
		}
		srv, err := New(st, o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", st.Org.ID, err)
		}
		m.servers = append(m.servers, srv)
		m.limits = append(m.limits, seed[i].Limits)
		m.byOrg[strings.ToLower(st.Org.ID)] = srv
		for _, in := range st.Integrations {
			m.byClient[in.ClientID] = srv
		}
	}
	if len(m.servers) == 0 {
		return nil, fmt.Errorf("umsim: no organization to serve")
	}
	return m, nil
}

// Servers returns the organizations' servers in seed order.
func (m *Multi) Servers() []*Server { return m.servers }

// Org returns the server of organization id, or nil.
func (m *Multi) Org(id string) *Server { return m.byOrg[strings.ToLower(id)] }

// Stats returns each organization's request statistics, by org id.
func (m *Multi) Stats() map[string]gate.Stats {
	out := make(map[string]gate.Stats, len(m.servers))
	for _, s := range m.servers {
		out[s.OrgID()] = s.Stats()
	}
	return out
}

// SaveState writes every organization's current state to path (as
// Server.SaveState; a single organization is written as its State, several
// as a Seed).
func (m *Multi) SaveState(path string) error {
	if len(m.servers) == 1 {
		return m.servers[0].SaveState(path)
	}
	var seed Seed
	for i, s := range m.servers {
		seed.Orgs = append(seed.Orgs, SeedOrg{State: *s.Snapshot(), Limits: m.limits[i]})
	}
	return save(path, seed)
}

// orgsAdminPrefix starts the admin endpoints of one organization.
const orgsAdminPrefix = adminPrefix + "orgs/"

// ServeHTTP routes the request to its organization's server.
func (m *Multi) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case p == umwire.BasePath || strings.HasPrefix(p, umwire.BasePath+"/"):
		m.route(m.byOrg[strings.ToLower(gate.OrgInPath(p))]).ServeHTTP(w, r)
	case strings.HasPrefix(p, orgsAdminPrefix):
		m.serveOrgAdmin(w, r)
	case strings.HasPrefix(p, adminPrefix):
		m.servers[0].ServeHTTP(w, r)
	default:
		m.route(m.byClient[formClientID(w, r)]).ServeHTTP(w, r)
	}
}

// route is s, or the first organization's server when s is nil.
func (m *Multi) route(s *Server) *Server {
	if s == nil {
		return m.servers[0]
	}
	return s
}

// serveOrgAdmin serves /_sim/orgs/{orgId}/... as /_sim/... of that
// organization.
func (m *Multi) serveOrgAdmin(w http.ResponseWriter, r *http.Request) {
	id, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, orgsAdminPrefix), "/")
	s := m.Org(id)
	if s == nil {
		writeError(w, r, http.StatusNotFound, umwire.ResultError, fmt.Sprintf("no organization %q in this simulator", id))
		return
	}
	r2 := r.Clone(r.Context())
	r2.URL.Path, r2.URL.RawPath = adminPrefix+rest, ""
	s.ServeHTTP(w, r2)
}

// maxTokenForm bounds the form body read to find a token request's
// client_id (the gate reads the same parsed form).
const maxTokenForm = 64 << 10

// formClientID returns the client_id of a token request's form, or "".
func formClientID(w http.ResponseWriter, r *http.Request) string {
	if r.Method != http.MethodPost {
		return ""
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxTokenForm)
	if err := r.ParseForm(); err != nil {
		return ""
	}
	return r.PostForm.Get(umwire.FormClientID)
}
