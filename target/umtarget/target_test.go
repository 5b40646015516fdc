package umtarget

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
)

func TestReadChoosesTheCheaperListing(t *testing.T) {
	t.Parallel()
	st := umsim.Generate(umsim.GenOptions{Users: 3000, UserGroups: 30, Seed: 3, OrgID: orgID})
	e := newEnv(t, st, umsim.Options{PageSize: 10})
	ctx := context.Background()
	few := &reconcile.Policy{Managed: []string{"Group 1", "Group 2", "Group 3"}}
	cur, err := e.target.ReadCurrent(ctx, needsFor(few, nil))
	if err != nil {
		t.Fatal(err)
	}
	r := e.target.LastRead
	t.Logf("three groups: %d listing requests instead of %d organization pages", r.PagesRead, r.OrgPages)
	if !r.ByGroup || !cur.ByGroup || r.PagesRead >= r.OrgPages/2 {
		t.Errorf("three groups: report %+v; want a read by group far below the %d organization pages", r, r.OrgPages)
	}
	for _, u := range cur.Users.All() {
		if !inAny(u.Groups, few.Managed) {
			t.Fatalf("read by group returned %s, in none of the groups (%v)", u.Key(), u.Groups)
		}
	}
	all := &reconcile.Policy{Managed: few.Managed, Unmatched: reconcile.RemoveUsers}
	cur, err = e.target.ReadCurrent(ctx, needsFor(all, nil))
	if err != nil {
		t.Fatal(err)
	}
	if r := e.target.LastRead; r.ByGroup || cur.ByGroup || r.PagesRead != r.OrgPages || cur.Users.Len() < 2900 {
		t.Errorf("policy removing unmatched users: report %+v, %d users; want the whole organization listing", r, cur.Users.Len())
	}
	many := &reconcile.Policy{}
	for i := range 30 {
		many.Managed = append(many.Managed, fmt.Sprintf("Group %d", i))
	}
	if _, err := e.target.ReadCurrent(ctx, needsFor(many, nil)); err != nil {
		t.Fatal(err)
	}
	if r := e.target.LastRead; r.PagesRead > r.OrgPages+len(many.Managed) {
		t.Errorf("thirty groups: report %+v; want at most the organization listing plus one probe per group", r)
	}
}

func inAny(groups, want []string) bool {
	for _, g := range groups {
		for _, w := range want {
			if strings.EqualFold(g, w) {
				return true
			}
		}
	}
	return false
}

// seeded is a small organization and a desired state that changes it.
func seeded(t *testing.T) (*env, []reconcile.User) {
	rng := rand.New(rand.NewPCG(42, 1))
	st := randomOrg(rng, 30)
	return newEnv(t, st, umsim.Options{}), drift(rng, st, 5)
}

func TestSafetyOnTheService(t *testing.T) {
	t.Parallel()
	e, want := seeded(t)
	pol := policy(reconcile.RemoveUsers)
	pol.MaxRemovals = reconcile.Limit{Count: 1}
	ctx := context.Background()
	for name, des := range map[string]reconcile.Desired{
		"empty source":  {Complete: true},
		"failed source": {Users: reconcile.UsersOf(want...)},
		"over limit":    {Users: reconcile.UsersOf(want...), Complete: true},
	} {
		before := e.sim.Snapshot()
		cur, err := e.target.ReadCurrent(ctx, pol.ReadNeedsFor(&des.Users))
		if err != nil {
			t.Fatal(err)
		}
		plan, err := reconcile.Diff(des, cur, validPolicy(t, pol))
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Withheld) == 0 {
			t.Fatalf("%s: nothing withheld", name)
		}
		_, err = reconcile.Apply(ctx, plan, e.target, reconcile.ApplyOptions{})
		var se *reconcile.SafetyError
		if !errors.As(err, &se) {
			t.Errorf("%s: apply error %v, want a *SafetyError", name, err)
		}
		after := e.sim.Snapshot()
		if len(after.Users) < len(before.Users) {
			t.Errorf("%s: %d users before, %d after: a removal went through", name, len(before.Users), len(after.Users))
		}
		checkUntouched(t, before, after, pol)
		checkNoRemovedMembership(t, before, after, name)
	}
}

// checkNoRemovedMembership fails when a user lost a group.
func checkNoRemovedMembership(t *testing.T, before, after *umsim.State, name string) {
	t.Helper()
	now := map[string][]string{}
	for _, u := range after.Users {
		now[simKey(u)] = u.Groups
	}
	for _, u := range before.Users {
		for _, g := range u.Groups {
			if !inAny([]string{g}, now[simKey(u)]) {
				t.Errorf("%s: %s lost %s", name, u.Email, g)
			}
		}
	}
}

func TestDryRunAndTestOnlyChangeNothing(t *testing.T) {
	t.Parallel()
	e, want := seeded(t)
	pol := policy(reconcile.RemoveUsers)
	ctx := context.Background()
	plan := e.plan(t, want, pol)
	before := e.sim.Snapshot()
	var events []reconcile.Event
	res, err := reconcile.Apply(ctx, plan, e.target, reconcile.ApplyOptions{DryRun: true, Events: func(ev reconcile.Event) { events = append(events, ev) }})
	if err != nil || res.Requests == 0 || len(events) == 0 || events[0].Request != 1 || events[0].Sent {
		t.Fatalf("dry run: %v, %+v, events %+v", err, res, events)
	}
	if n := e.sim.Stats().Requests["action"]; len(n) != 0 {
		t.Errorf("dry run sent action requests: %v", n)
	}
	res, err = reconcile.Apply(ctx, plan, e.target, reconcile.ApplyOptions{TestOnly: true})
	if err != nil || res.Requests == 0 {
		t.Fatalf("test-only run: %v, %+v", err, res)
	}
	if after := e.sim.Snapshot(); !reflect.DeepEqual(before.Users, after.Users) || !reflect.DeepEqual(before.Invites, after.Invites) {
		t.Error("a dry or test-only run changed the organization")
	}
}

// With createUserGroups, a target that does not exist is created as a
// user group; an admin group that does not exist cannot be, and is
// reported before any request, its memberships left out, the rest applied.
func TestGroupCreationAndMissingTargets(t *testing.T) {
	t.Parallel()
	e, want := seeded(t)
	pol := policy(reconcile.Preserve)
	pol.Managed = append(pol.Managed, "New Group", "_admin_No Such Product")
	pol.CreateUserGroups = true // "New Group" is not among pol.UserGroups: a target that does not exist suffices
	for i := range want {
		if i%3 == 0 {
			want[i].Groups = append(want[i].Groups, "New Group")
		}
	}
	want[1].Groups = append(want[1].Groups, "_admin_No Such Product")
	plan := e.plan(t, want, pol)
	if len(plan.MissingGroups) != 1 || plan.MissingGroups[0] != (reconcile.MissingGroup{Name: "_admin_No Such Product", Users: 1}) {
		t.Fatalf("missing groups %+v, want the admin group, wanted by 1 user", plan.MissingGroups)
	}
	if n := e.sim.Stats().Requests["action"]; len(n) != 0 {
		t.Fatalf("planning sent action requests: %v", n)
	}
	_, err := e.run(t, want, pol)
	var me *reconcile.MissingGroupsError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "admin group, which the service cannot create") {
		t.Fatalf("apply error = %v; want the missing admin group reported", err)
	}
	var ae *reconcile.ApplyError
	if errors.As(err, &ae) {
		t.Fatalf("entries failed: %v", ae)
	}
	again := e.plan(t, want, pol)
	if !again.Empty() || again.InSync() {
		t.Errorf("plan after apply: empty %v, in sync %v; want empty but not in sync (a target is missing):\n%s", again.Empty(), again.InSync(), render(again))
	}
	want[1].Groups = want[1].Groups[:len(want[1].Groups)-1]
	if again := e.plan(t, want, pol); !again.InSync() {
		t.Errorf("plan without the missing target is not in sync:\n%s", render(again))
	}
}

// Without createUserGroups a target that does not exist is reported, with
// what to do, and no membership of it is planned.
func TestMissingTargetWithoutCreation(t *testing.T) {
	t.Parallel()
	e, want := seeded(t)
	pol := policy(reconcile.Preserve)
	pol.Managed = append(pol.Managed, "No Such Profile")
	want[0].Groups = append(want[0].Groups, "No Such Profile")
	want[2].Groups = append(want[2].Groups, "No Such Profile")
	plan := e.plan(t, want, pol)
	if len(plan.MissingGroups) != 1 || plan.MissingGroups[0].Users != 2 || !strings.Contains(plan.MissingGroups[0].Describe(plan.Names), "set createUserGroups: true") {
		t.Fatalf("missing groups %+v, want No Such Profile wanted by 2 users, with what to do", plan.MissingGroups)
	}
	for _, c := range plan.Changes {
		if slices.Contains(c.Add, "No Such Profile") || c.Kind == reconcile.KindCreateGroup {
			t.Errorf("change %+v adds to or creates the missing target", c)
		}
	}
}

func TestTestOnlyRunOfDependentRequests(t *testing.T) {
	t.Parallel()
	e, want := seeded(t)
	pol := policy(reconcile.Preserve)
	pol.Managed = append(pol.Managed, "New Group")
	pol.UserGroups = append(pol.UserGroups, "New Group")
	pol.CreateUserGroups = true
	for i := range want {
		want[i].Groups = append(want[i].Groups, "New Group")
	}
	ctx := context.Background()
	plan := e.plan(t, want, pol)
	before := e.sim.Snapshot()
	res, err := reconcile.Apply(ctx, plan, e.target, reconcile.ApplyOptions{TestOnly: true})
	if err != nil {
		t.Fatalf("test-only run: %v", err)
	}
	if res.Requests < 2 || res.Unverified == 0 {
		t.Errorf("result %+v: want entries waiting on the group's creation, unverifiable in test mode", res)
	}
	if after := e.sim.Snapshot(); !reflect.DeepEqual(before.UserGroups, after.UserGroups) || !reflect.DeepEqual(before.Users, after.Users) {
		t.Error("the test-only run changed the organization")
	}
}

// TestMissingGroupsFromTheGroupListing: which of the empty targets exist
// is learnt from the group listing (here 4 pages of 2 groups), read once,
// not from one member listing per group; an admin group, which the
// listing does not name, is probed. The group listing is outside the
// specification's endpoints: a service that does not serve it may answer
// 404, 400 (path not understood), 403 (not permitted), 405 or 501. Each
// gets one probe per group instead, with the same answer, and the client
// does not ask for the listing again.
func TestMissingGroupsFromTheGroupListing(t *testing.T) {
	t.Parallel()
	targets := []string{"G1", "G2", "G3", "P1", "Gone A", "Gone B", "_admin_G1"}
	for _, status := range []int{http.StatusOK, http.StatusNotFound, http.StatusBadRequest, http.StatusForbidden,
		http.StatusMethodNotAllowed, http.StatusNotImplemented} {
		t.Run(fmt.Sprintf("group listing answers %d", status), func(t *testing.T) {
			sim := newSim(t, randomOrg(nil, 0), umsim.Options{PageSize: 2})
			listingAsked := 0
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.Contains(r.URL.Path, "/groups/") {
					listingAsked++
					if status != http.StatusOK {
						w.WriteHeader(status)
						return
					}
				}
				sim.ServeHTTP(w, r)
			})
			c := simClient(t, h)
			for run := range 2 { // a daemon's runs share the client, each with its own Target
				missing, err := New(c).MissingGroups(context.Background(), targets)
				if err != nil {
					t.Fatalf("run %d: %v", run, err)
				}
				if !slices.Equal(missing, []string{"Gone A", "Gone B"}) {
					t.Errorf("run %d: missing %v, want [Gone A Gone B]", run, missing)
				}
			}
			st := sim.Stats()
			probes, pages := st.Count(gate.EndpointGroupUsers, 200)+st.Count(gate.EndpointGroupUsers, 404), st.Count(gate.EndpointGroups, 200)
			wantProbes, wantPages, wantAsked := 2, 8, 8 // per run: _admin_G1; 7 groups (G1-G4, Other, P1, P2), 2 a page
			if status != http.StatusOK {
				wantProbes, wantPages, wantAsked = 2*len(targets), 0, 1
			}
			if probes != wantProbes || pages != wantPages || listingAsked != wantAsked {
				t.Errorf("%d member listings, %d group listing pages, listing asked %d times; want %d, %d, %d",
					probes, pages, listingAsked, wantProbes, wantPages, wantAsked)
			}
		})
	}
}

// TestOneUnknownGroupIsProbed: when a single group's existence is unknown,
// its member listing (one request, an endpoint of the specification)
// answers it; the group listing could not cost less.
func TestOneUnknownGroupIsProbed(t *testing.T) {
	t.Parallel()
	sim := newSim(t, randomOrg(nil, 0), umsim.Options{PageSize: 2})
	tg := New(simClient(t, sim))
	missing, err := tg.MissingGroups(context.Background(), []string{"Gone A", "_admin_G1"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(missing, []string{"Gone A"}) {
		t.Errorf("missing %v, want [Gone A]", missing)
	}
	st := sim.Stats()
	if n := st.Count(gate.EndpointGroups, 200); n != 0 {
		t.Errorf("%d group listing pages read, want none", n)
	}
	if n := st.Count(gate.EndpointGroupUsers, 200) + st.Count(gate.EndpointGroupUsers, 404); n != 2 {
		t.Errorf("%d member listings, want 2", n)
	}
}

// TestGroupListingInAnotherShape: a service may serve a group listing in
// a shape other than the simulator's: each group's name under "name", or
// only some kinds of group. A listing that names a group with no name, or
// leaves out a group some user is in (G1), is not believed: the groups are
// probed instead, and none is reported missing wrongly.
func TestGroupListingInAnotherShape(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"names under another key": `{"lastPage":true,"result":"success","groups":[{"name":"G1"},{"name":"G2"},{"name":"G3"},{"name":"Other"}]}`,
		"product profiles only":   `{"lastPage":true,"result":"success","groups":[{"groupName":"P1","type":"PRODUCT_PROFILE"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			sim := newSim(t, plainOrg(3, func(int) []string { return []string{"G1"} }), umsim.Options{})
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.Contains(r.URL.Path, "/groups/") {
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write([]byte(body))
					return
				}
				sim.ServeHTTP(w, r)
			})
			missing, err := New(simClient(t, h)).MissingGroups(context.Background(), []string{"G1", "G2", "G3", "Gone A"})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(missing, []string{"Gone A"}) {
				t.Errorf("missing %v, want [Gone A]", missing)
			}
		})
	}
}
