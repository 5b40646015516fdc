package umtarget

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umapi"
	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
	"github.com/orgsync/orgsync/target/umwire"
)

// The tests in this file run the reconciler against the simulator over
// loopback HTTP: read, diff, apply, read again.

const orgID = "C0FFEE@VendorOrg"

var testIntegration = sync.OnceValues(gate.NewTestIntegration)

type env struct {
	sim    *umsim.Server
	target *Target
}

func newEnv(t *testing.T, st *umsim.State, opts umsim.Options) *env {
	t.Helper()
	sim := newSim(t, st, opts)
	return &env{sim: sim, target: New(simClient(t, sim))}
}

// newSim is the simulator of st, which the test integration may use.
func newSim(t *testing.T, st *umsim.State, opts umsim.Options) *umsim.Server {
	t.Helper()
	in, _ := testIntegration()
	st.Integrations = []umsim.Integration{{ClientID: in.ClientID, ClientSecret: in.ClientSecret,
		TechnicalAccountID: in.TechnicalAccountID, Certificate: in.CertificatePEM}}
	sim, err := umsim.New(st, opts)
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// simClient is a client of the simulator served by h, without limits.
func simClient(t *testing.T, h http.Handler) *umapi.Client {
	t.Helper()
	in, _ := testIntegration()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := umapi.New(umapi.Config{BaseURL: srv.URL, AuthBaseURL: srv.URL, OrgID: orgID, ClientID: in.ClientID,
		ClientSecret: in.ClientSecret, AuthMethod: umapi.AuthOAuth, ReadLimit: 1 << 20, AppLimit: 1 << 20,
		RetryWaitMin: time.Millisecond, RetryWaitMax: 5 * time.Millisecond, MaxRetries: 10})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var (
	managed     = []string{"G1", "G2", "G3", "P1"}
	userGroups  = []string{"G1", "G2", "G3"}
	unmanaged   = []string{"Other", "P2"}
	allGroups   = append(append([]string{"G4"}, managed...), unmanaged...)
	excludeExpr = regexp.MustCompile(`^svc-`)
)

// validPolicy is pol made a reconcile.ValidPolicy, as a run makes it.
func validPolicy(t *testing.T, pol *reconcile.Policy) *reconcile.ValidPolicy {
	t.Helper()
	v, err := pol.Valid()
	if err != nil {
		t.Fatalf("policy: %v", err)
	}
	return v
}

func policy(unmatched reconcile.Unmatched) *reconcile.Policy {
	return &reconcile.Policy{Managed: managed, UserGroups: userGroups, Unmatched: unmatched,
		Update: reconcile.Attributes{FirstName: true, LastName: true, Email: true}, ExcludeGroups: []string{"G4"},
		ExcludeUsernames: []*regexp.Regexp{excludeExpr}}
}

// randomOrg is n users of every identity type in random groups; some are
// service accounts (svc-*) or in G4, which the policy excludes.
func randomOrg(rng *rand.Rand, n int) *umsim.State {
	st := &umsim.State{
		Org: umsim.Org{ID: orgID, Domains: []umsim.Domain{
			{Name: "example.com", Directory: "corp", Claimed: true},
			{Name: "fed.example.net", Directory: "fed", Claimed: true}}},
		Products:   []umsim.Product{{Name: "Prod", Profiles: []string{"P1", "P2"}}},
		UserGroups: []umsim.UserGroup{{Name: "G1"}, {Name: "G2"}, {Name: "G3"}, {Name: "G4"}, {Name: "Other"}},
	}
	for i := range n {
		st.Users = append(st.Users, simUser(rng, fmt.Sprintf("u%d", i)))
	}
	return st
}

func simUser(rng *rand.Rand, name string) umsim.User {
	if rng.IntN(12) == 0 {
		name = "svc-" + name
	}
	u := umsim.User{FirstName: "F" + name, LastName: "L", Country: "US"}
	switch rng.IntN(10) {
	case 0, 1, 2, 3, 4, 5:
		u.Type, u.Email = umwire.TypeEnterpriseID, name+"@example.com"
	case 6, 7:
		u.Type, u.Email = umwire.TypeFederatedID, name+"@fed.example.net"
	case 8:
		u.Type, u.Email, u.Username, u.Domain = umwire.TypeFederatedID, name+"@fed.example.net", name, "fed.example.net"
	default:
		u.Type, u.Email = umwire.TypeVendorID, name+"@gmail.com"
	}
	for _, g := range allGroups {
		if rng.IntN(4) == 0 && (g != "G4" || rng.IntN(3) == 0) {
			u.Groups = append(u.Groups, g)
		}
	}
	return u
}

// driftedOrg is a random organization of 80 users and a desired state 25
// users away from it, drawn from seed and stream.
func driftedOrg(seed int, stream uint64) (*umsim.State, []reconcile.User) {
	rng := rand.New(rand.NewPCG(uint64(seed), stream))
	st := randomOrg(rng, 80)
	return st, drift(rng, st, 25)
}

// drift derives a desired state from the organization: some users dropped,
// some renamed, managed memberships reshuffled, new users added.
func drift(rng *rand.Rand, st *umsim.State, newUsers int) []reconcile.User {
	var want []reconcile.User
	for _, su := range st.Users {
		w := su
		u := ModelUser(&umwire.User{Email: w.Email, Username: w.Username, Domain: w.Domain, FirstName: w.FirstName,
			LastName: w.LastName, Country: w.Country, Type: w.Type})
		switch rng.IntN(6) {
		case 0:
			continue
		case 1:
			u.FirstName = "Renamed"
		case 2:
			if u.Username != "" { // matched by username: the email may change
				u.Email = "moved-" + u.Email
			}
		}
		u.Groups = randomManaged(rng)
		if rng.IntN(8) == 0 { // in no managed group: a read by group must look it up
			u.Groups = nil
		}
		want = append(want, u)
	}
	for i := range newUsers {
		su := simUser(rng, fmt.Sprintf("new%d", i))
		u := ModelUser(&umwire.User{Email: su.Email, Username: su.Username, Domain: su.Domain, FirstName: su.FirstName,
			LastName: su.LastName, Country: su.Country, Type: su.Type})
		u.Groups = randomManaged(rng)
		want = append(want, u)
	}
	return want
}

// randomManaged is at least one managed group, in random letter case.
func randomManaged(rng *rand.Rand) []string {
	var gs []string
	for len(gs) == 0 {
		for _, g := range managed {
			if rng.IntN(3) == 0 {
				if rng.IntN(2) == 0 {
					g = strings.ToLower(g)
				}
				gs = append(gs, g)
			}
		}
	}
	return gs
}

// run reads, diffs and applies once; it returns the plan it applied.
func (e *env) run(t *testing.T, want []reconcile.User, pol *reconcile.Policy) (*reconcile.Plan, error) {
	t.Helper()
	ctx := context.Background()
	cur, err := e.target.ReadCurrent(ctx, needsFor(pol, want))
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	plan, err := reconcile.Diff(reconcile.Desired{Users: reconcile.UsersOf(want...), Complete: true}, cur, validPolicy(t, pol))
	if err != nil {
		t.Fatalf("diff: %v", err)
	}
	_, err = reconcile.Apply(ctx, plan, e.target, reconcile.ApplyOptions{})
	return plan, err
}

func (e *env) plan(t *testing.T, want []reconcile.User, pol *reconcile.Policy) *reconcile.Plan {
	t.Helper()
	cur, err := e.target.ReadCurrent(context.Background(), needsFor(pol, want))
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	plan, err := reconcile.Diff(reconcile.Desired{Users: reconcile.UsersOf(want...), Complete: true}, cur, validPolicy(t, pol))
	if err != nil {
		t.Fatalf("diff: %v", err)
	}
	return plan
}

// checkUntouched compares two snapshots: excluded users are identical,
// and every user still present kept its unmanaged memberships.
func checkUntouched(t *testing.T, before, after *umsim.State, pol *reconcile.Policy) {
	t.Helper()
	now := map[string]umsim.User{}
	for _, u := range after.Users {
		now[simKey(u)] = u
	}
	isManaged := func(g string) bool {
		return slices.ContainsFunc(pol.Managed, func(m string) bool { return strings.EqualFold(m, g) })
	}
	for _, b := range before.Users {
		a, ok := now[simKey(b)]
		name := b.Username
		if name == "" {
			name = b.Email
		}
		excluded := excludeExpr.MatchString(name) || slices.Contains(b.Groups, "G4")
		if excluded {
			if !ok || !slices.Equal(a.Groups, b.Groups) || a.FirstName != b.FirstName {
				t.Errorf("excluded user %s changed: before %+v, after %+v (present %v)", b.Email, b, a, ok)
			}
			continue
		}
		if !ok {
			if pol.Unmatched != reconcile.RemoveUsers && pol.Unmatched != reconcile.DeleteUsers {
				t.Errorf("user %s removed under policy %q", b.Email, pol.Unmatched)
			}
			continue
		}
		var ub, ua []string
		for _, g := range b.Groups {
			if !isManaged(g) {
				ub = append(ub, g)
			}
		}
		for _, g := range a.Groups {
			if !isManaged(g) {
				ua = append(ua, g)
			}
		}
		slices.Sort(ub)
		slices.Sort(ua)
		if !slices.Equal(ub, ua) {
			t.Errorf("unmanaged memberships of %s changed: %v -> %v", b.Email, ub, ua)
		}
	}
}

// simKey is the key the reconciler matches a simulator user by.
func simKey(u umsim.User) string {
	m := ModelUser(&umwire.User{Email: u.Email, Username: u.Username, Domain: u.Domain, Type: u.Type})
	return m.Key()
}

func TestConvergence(t *testing.T) {
	t.Parallel()
	emails := 0
	defer func() {
		if emails == 0 {
			t.Error("no plan changed an email; the email update is untested")
		}
	}()
	for seed := range 8 {
		unmatched := []reconcile.Unmatched{reconcile.Preserve, reconcile.RemoveGroups, reconcile.RemoveUsers, reconcile.DeleteUsers}[seed%4]
		t.Run(fmt.Sprintf("seed %d %s", seed, unmatched), func(t *testing.T) {
			st, want := driftedOrg(seed, 99)
			e := newEnv(t, st, umsim.Options{PageSize: 7})
			pol := policy(unmatched)
			before := e.sim.Snapshot()
			first, err := e.run(t, want, pol)
			if err != nil {
				t.Fatalf("apply: %v", err)
			}
			if c := first.Counts(); c.Of(reconcile.KindCreate) == 0 || c.Of(reconcile.KindUpdate) == 0 || c.AddMemberships == 0 || c.RemoveMemberships == 0 {
				t.Fatalf("the first plan lacks a kind of change, the test would prove little: %+v", c)
			}
			t.Logf("first plan: %+v; read by group: %v", first.Counts(), e.target.LastRead.ByGroup)
			for _, c := range first.Changes {
				if c.Set != nil && c.Set.Email != nil {
					emails++
				}
			}
			if again := e.plan(t, want, pol); !again.Empty() {
				t.Errorf("plan after apply is not empty:\n%s", render(again))
			}
			checkUntouched(t, before, e.sim.Snapshot(), pol)
		})
	}
}

func TestConvergenceWithFaults(t *testing.T) {
	t.Parallel()
	for seed := range 4 {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			st, want := driftedOrg(seed, 7)
			e := newEnv(t, st, umsim.Options{PageSize: 7})
			pol := policy(reconcile.RemoveGroups)
			before := e.sim.Snapshot()
			e.sim.SetFaults(gate.Faults{Seed: int64(seed), ErrorRate: 0.1, AmbiguousRate: 0.1})
			for range 2 {
				if _, err := e.run(t, want, pol); err != nil {
					t.Logf("run with faults: %v", err)
				}
			}
			faults := 0
			for _, n := range e.sim.Stats().Faults {
				faults += n
			}
			if faults == 0 {
				t.Fatal("no fault was injected; the test would prove nothing")
			}
			t.Logf("%d faults injected", faults)
			e.sim.SetFaults(gate.Faults{})
			if again := e.plan(t, want, pol); !again.Empty() {
				t.Errorf("not converged after two runs with 10%% faults:\n%s", render(again))
			}
			checkUntouched(t, before, e.sim.Snapshot(), pol)
		})
	}
}

// render lists the plan's changes, withheld changes and missing groups,
// one a line, for a test's message.
func render(p *reconcile.Plan) string {
	var b strings.Builder
	for _, list := range [][]reconcile.Change{p.Changes, p.Withheld} {
		for i := range list {
			b.WriteString(fmt.Sprintf("%s %s %+v\n", list[i].Kind, list[i].Key(), list[i]))
		}
	}
	for _, g := range p.MissingGroups {
		b.WriteString(g.Describe(p.Names) + "\n")
	}
	return b.String()
}

// needsFor is what pol needs read for the desired users want.
func needsFor(pol *reconcile.Policy, want []reconcile.User) reconcile.ReadNeeds {
	users := reconcile.UsersOf(want...)
	return pol.ReadNeedsFor(&users)
}
