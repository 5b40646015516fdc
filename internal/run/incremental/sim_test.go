package incremental

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/store/snapshot"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umapi"
	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
	"github.com/orgsync/orgsync/target/umtarget"
	"github.com/orgsync/orgsync/target/umwire"
)

// The tests in this file run against the simulator over loopback HTTP.

const orgID = "C0FFEE@VendorOrg"

var testIntegration = sync.OnceValues(gate.NewTestIntegration)

// org is a simulated organization, a client of it and a snapshot store.
type org struct {
	sim    *umsim.Server
	client *umapi.Client
	store  *snapshot.Store
	now    time.Time
}

func newOrg(t *testing.T, st *umsim.State) *org {
	t.Helper()
	in, _ := testIntegration()
	st.Integrations = []umsim.Integration{{ClientID: in.ClientID, ClientSecret: in.ClientSecret,
		TechnicalAccountID: in.TechnicalAccountID, Certificate: in.CertificatePEM}}
	sim, err := umsim.New(st, umsim.Options{PageSize: 7})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	c, err := umapi.New(umapi.Config{BaseURL: srv.URL, AuthBaseURL: srv.URL, OrgID: orgID, ClientID: in.ClientID,
		ClientSecret: in.ClientSecret, AuthMethod: umapi.AuthOAuth, ReadLimit: 1 << 20, AppLimit: 1 << 20,
		RetryWaitMin: time.Millisecond, RetryWaitMax: 5 * time.Millisecond, MaxRetries: 10})
	if err != nil {
		t.Fatal(err)
	}
	store := snapshot.Open(t.TempDir())
	return &org{sim: sim, client: c, store: store, now: time.Now()}
}

func (o *org) settings() Settings {
	return Settings{Store: o.store, Org: "main", OrgID: orgID, Fingerprint: snapshot.Fingerprint(orgID, "sim"),
		Clock: func() time.Time { return o.now }}
}

// outcome is what one run did.
type outcome struct {
	run    *Run
	plan   *reconcile.Plan
	result *reconcile.Result
	contra *Contradiction
	err    error
}

// begin begins a run for want under pol, reads and plans it.
func (o *org) begin(t *testing.T, want []reconcile.User, pol *reconcile.Policy) (*Run, *reconcile.Plan, *umtarget.Target) {
	t.Helper()
	target := umtarget.New(o.client)
	r := Begin(o.settings(), needsFor(pol, want))
	cur, err := r.Read(context.Background(), target, target)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return r, diff(t, want, cur, pol), target
}

func diff(t *testing.T, want []reconcile.User, cur *reconcile.Current, pol *reconcile.Policy) *reconcile.Plan {
	t.Helper()
	valid, err := pol.Valid()
	if err != nil {
		t.Fatal(err)
	}
	plan, err := reconcile.Diff(reconcile.Desired{Users: reconcile.UsersOf(want...), Complete: true}, cur, valid)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// send applies plan through s, sending with next.
func send(s *Sending, next reconcile.Sender, plan *reconcile.Plan) (*reconcile.Result, error) {
	ctx, sender := s.Wrap(context.Background(), next, plan)
	return reconcile.Apply(ctx, plan, sender, reconcile.ApplyOptions{})
}

// sync runs the organization once as a real run does: begin, read, plan,
// send (recording), and, at a contradiction, finish that sending and
// switch: read fully, plan again and send the rest (outcome.run is then
// the run that switched).
func (o *org) sync(t *testing.T, want []reconcile.User, pol *reconcile.Policy) outcome {
	t.Helper()
	r, plan, target := o.begin(t, want, pol)
	s, err := r.Send(plan, true)
	if err != nil {
		return outcome{run: r, err: err}
	}
	out := outcome{run: r, plan: plan}
	out.result, out.err = send(s, target, plan)
	out.contra = s.Contradiction()
	if _, err := s.Finish(); err != nil {
		t.Fatalf("finish: %v", err)
	}
	if out.contra == nil {
		return out
	}
	out.run = r.Switch(out.contra)
	cur, err := out.run.Read(context.Background(), target, target)
	if err != nil {
		t.Fatalf("full read: %v", err)
	}
	out.plan = diff(t, want, cur, pol)
	if s, err = out.run.Send(out.plan, true); err != nil {
		t.Fatalf("the full plan's sending: %v", err)
	}
	out.result, out.err = send(s, target, out.plan)
	if _, err := s.Finish(); err != nil {
		t.Fatalf("finish: %v", err)
	}
	return out
}

// listingPages counts the user listing pages the organization served.
func (o *org) listingPages() int {
	st := o.sim.Stats()
	return st.Count(gate.EndpointUsers, 200) + st.Count(gate.EndpointGroupUsers, 200) + st.Count(gate.EndpointGroupUsers, 404)
}

// fullRead reads every user and invite of the organization.
func (o *org) fullRead(t *testing.T) *reconcile.Current {
	t.Helper()
	cur, err := umtarget.New(o.client).ReadCurrent(context.Background(),
		reconcile.ReadNeeds{AllUsers: true, RevokeInvites: true})
	if err != nil {
		t.Fatal(err)
	}
	return cur
}

// sameAsOrganization fails unless the saved snapshot holds the users and
// pending invites the organization has.
func (o *org) sameAsOrganization(t *testing.T) {
	t.Helper()
	snap, err := o.store.Load("main")
	if err != nil {
		t.Fatal(err)
	}
	if snap.Doubt != "" {
		t.Fatalf("the snapshot is in doubt: %s", snap.Doubt)
	}
	cur := o.fullRead(t)
	if got, want := userLines(snap.Users), userLines(cur.Users); !slices.Equal(got, want) {
		t.Errorf("snapshot users differ from the organization's:\n%s", diffLines(got, want))
	}
	if got, want := inviteLines(snap.Invites), inviteLines(cur.Invites); !slices.Equal(got, want) {
		t.Errorf("snapshot invites %q, the organization's %q", got, want)
	}
}

// userLines writes users one a line, sorted, groups in lower case sorted.
func userLines(users reconcile.Users) []string {
	out := make([]string, users.Len())
	for i, u := range users.All() {
		groups := make([]string, len(u.Groups))
		for j, g := range u.Groups {
			groups[j] = strings.ToLower(g)
		}
		slices.Sort(groups)
		out[i] = fmt.Sprintf("%s %s email=%s username=%s domain=%s name=%s/%s country=%s groups=%v",
			u.Key(), u.Type, u.Email, u.Username, u.Domain, u.FirstName, u.LastName, u.Country, groups)
	}
	slices.Sort(out)
	return out
}

// inviteLines are the emails of the pending invites, sorted.
func inviteLines(invites []reconcile.Invite) []string {
	var out []string
	for _, in := range invites {
		if !in.Expired {
			out = append(out, strings.ToLower(in.Email))
		}
	}
	slices.Sort(out)
	return out
}

func diffLines(got, want []string) string {
	var b strings.Builder
	for _, l := range got {
		if !slices.Contains(want, l) {
			b.WriteString("  snapshot only: " + l + "\n")
		}
	}
	for _, l := range want {
		if !slices.Contains(got, l) {
			b.WriteString("  organization only: " + l + "\n")
		}
	}
	return b.String()
}

var (
	managed  = []string{"G1", "G2", "G3", "P1", "G9"}
	groupSet = []string{"G1", "G2", "G3", "P1", "Other", "P2"}
)

// randomOrg is n users of every identity type in random groups, and a
// few pending invites.
func randomOrg(rng *rand.Rand, n int) *umsim.State {
	st := &umsim.State{
		Org: umsim.Org{ID: orgID, Domains: []umsim.Domain{
			{Name: "example.com", Directory: "corp", Claimed: true},
			{Name: "fed.example.net", Directory: "fed", Claimed: true}}},
		Products:   []umsim.Product{{Name: "Prod", Profiles: []string{"P1", "P2"}}},
		UserGroups: []umsim.UserGroup{{Name: "G1"}, {Name: "G2"}, {Name: "G3"}, {Name: "Other"}},
	}
	for i := range n {
		st.Users = append(st.Users, simUser(rng, fmt.Sprintf("u%d", i)))
	}
	for i := range 3 {
		st.Invites = append(st.Invites, umsim.Invite{Email: fmt.Sprintf("inv%d@gmail.example", i), LastSentDTS: time.Now().UnixMilli()})
	}
	return st
}

func simUser(rng *rand.Rand, name string) umsim.User {
	u := umsim.User{FirstName: "F" + name, LastName: "L", Country: "US"}
	switch rng.IntN(10) {
	case 0, 1, 2, 3, 4, 5:
		u.Type, u.Email = umwire.TypeEnterpriseID, name+"@example.com"
	case 6, 7:
		u.Type, u.Email = umwire.TypeFederatedID, name+"@fed.example.net"
	case 8:
		u.Type, u.Email, u.Username, u.Domain = umwire.TypeFederatedID, name+"@fed.example.net", name, "fed.example.net"
	default:
		u.Type, u.Email = umwire.TypeVendorID, name+"@gmail.example"
	}
	for _, g := range groupSet {
		if rng.IntN(4) == 0 {
			u.Groups = append(u.Groups, g)
		}
	}
	return u
}

// drift is a desired state some way from the organization's users
// (current): users left out, renamed, moved to another email, new ones,
// managed memberships reshuffled.
func drift(rng *rand.Rand, current reconcile.Users, round int) []reconcile.User {
	var want []reconcile.User
	for _, u := range current.All() {
		switch rng.IntN(8) {
		case 0:
			continue
		case 1:
			u.FirstName = fmt.Sprintf("Renamed%d", round)
		case 2:
			if u.Type == reconcile.FederatedID && u.Username != u.Email { // matched by username: the email may change
				u.Email = fmt.Sprintf("moved%d-%s", round, u.Email)
			}
		}
		u.Groups = randomManaged(rng)
		want = append(want, u)
	}
	for i := range 6 {
		su := simUser(rng, fmt.Sprintf("new%d-%d", round, i))
		u := umtarget.ModelUser(&umwire.User{Email: su.Email, Username: su.Username, Domain: su.Domain, FirstName: su.FirstName,
			LastName: su.LastName, Country: su.Country, Type: su.Type})
		u.Groups = randomManaged(rng)
		want = append(want, u)
	}
	want = append(want, reconcile.User{Type: reconcile.VendorID, Email: "inv0@gmail.example", Groups: []string{"G1"}})
	return want
}

func randomManaged(rng *rand.Rand) []string {
	var gs []string
	for _, g := range managed {
		if rng.IntN(3) == 0 {
			if rng.IntN(2) == 0 {
				g = strings.ToLower(g)
			}
			gs = append(gs, g)
		}
	}
	return gs
}

func testPolicy(unmatched reconcile.Unmatched) *reconcile.Policy {
	return &reconcile.Policy{Managed: managed, UserGroups: []string{"G1", "G2", "G3", "G9"}, CreateUserGroups: true,
		Unmatched: unmatched, Update: reconcile.Attributes{FirstName: true, LastName: true, Email: true},
		RevokeUnmatchedInvites: unmatched == reconcile.RemoveUsers}
}

// TestSnapshotFollowsTheOrganization: after a full run and after each
// incremental run that follows, the snapshot holds exactly what a full
// read of the organization finds, for random organizations and changes
// of every kind (creates, invites, renames, email changes, memberships
// added and removed user- and group-rooted, groups created, users and
// invites removed), under each policy for unmatched users.
func TestSnapshotFollowsTheOrganization(t *testing.T) {
	t.Parallel()
	for seed := range 8 {
		unmatched := []reconcile.Unmatched{reconcile.Preserve, reconcile.RemoveGroups, reconcile.RemoveUsers, reconcile.DeleteUsers}[seed%4]
		t.Run(fmt.Sprintf("seed %d %s", seed, unmatched), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(seed), 27))
			o := newOrg(t, randomOrg(rng, 60))
			pol := testPolicy(unmatched)
			kinds := map[Kind]int{}
			for round := range 4 {
				want := drift(rng, o.fullRead(t).Users, round)
				pages := o.listingPages()
				out := o.sync(t, want, pol)
				pages = o.listingPages() - pages
				if out.err != nil {
					t.Fatalf("round %d: %v", round, out.err)
				}
				if out.contra != nil {
					t.Fatalf("round %d: a contradiction with nothing changed behind the run's back: %s", round, out.contra)
				}
				kinds[out.run.Kind()]++
				counts := out.plan.Counts()
				t.Logf("round %d: %s run, %d listing pages, plan %+v", round, out.run.Kind(), pages, counts)
				if counts.Of(reconcile.KindCreate) == 0 || counts.Of(reconcile.KindUpdate) == 0 || counts.AddMemberships == 0 || counts.RemoveMemberships == 0 {
					t.Fatalf("round %d: the plan lacks a kind of change, the test would prove little: %+v", round, counts)
				}
				if out.run.Kind() == Incremental && pages != 0 {
					t.Errorf("round %d: an incremental run read %d listing pages", round, pages)
				}
				o.sameAsOrganization(t)
				o.now = o.now.Add(time.Hour)
			}
			if kinds[Full] != 1 || kinds[Incremental] != 3 {
				t.Errorf("runs %v, want one full and three incremental", kinds)
			}
		})
	}
}

// needsFor is what pol needs read for the desired users want.
func needsFor(pol *reconcile.Policy, want []reconcile.User) reconcile.ReadNeeds {
	users := reconcile.UsersOf(want...)
	return pol.ReadNeedsFor(&users)
}
