package umtarget

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
	"github.com/orgsync/orgsync/target/umwire"
)

// plainOrg is n Enterprise IDs u0000@example.com … in listing order, each
// in the groups groupsOf gives it; user groups G1, G2, G3 and Other exist.
func plainOrg(n int, groupsOf func(i int) []string) *umsim.State {
	st := &umsim.State{
		Org:        umsim.Org{ID: orgID, Domains: []umsim.Domain{{Name: "example.com", Directory: "corp", Claimed: true}}},
		UserGroups: []umsim.UserGroup{{Name: "G1"}, {Name: "G2"}, {Name: "G3"}, {Name: "Other"}},
	}
	for i := range n {
		st.Users = append(st.Users, umsim.User{Type: umwire.TypeEnterpriseID, Email: plainEmail(i),
			FirstName: "F", LastName: "L", Country: "US", Groups: groupsOf(i)})
	}
	return st
}

func plainEmail(i int) string { return fmt.Sprintf("u%04d@example.com", i) }

// plainUser is the desired record of plainOrg's user i (or a new user
// with that number) in groups.
func plainUser(i int, groups ...string) reconcile.User {
	return reconcile.User{Type: reconcile.EnterpriseID, Email: plainEmail(i), FirstName: "F", LastName: "L",
		Country: "US", Groups: groups}
}

// threeGroups puts users 300..329 in G1, G2 or G3 (one page each at page
// size 20) and users 350..369 in Other.
func threeGroups(i int) []string {
	switch {
	case i >= 300 && i < 330:
		return []string{fmt.Sprintf("G%d", i%3+1)}
	case i >= 350 && i < 370:
		return []string{"Other"}
	}
	return nil
}

var threePolicy = &reconcile.Policy{Managed: []string{"G1", "G2", "G3"}, UserGroups: []string{"G1", "G2", "G3"},
	Unmatched: reconcile.RemoveGroups, Update: reconcile.Attributes{FirstName: true, LastName: true}}

// TestReadByGroupConverges is the case a read by group used to miss: desired
// users who exist in the organization but in none of the groups read. They
// are looked up one by one, so the plan updates them instead of creating
// them, and the plan after apply is empty.
func TestReadByGroupConverges(t *testing.T) {
	t.Parallel()
	e := newEnv(t, plainOrg(400, threeGroups), umsim.Options{PageSize: 20})
	var want []reconcile.User
	for i := 300; i < 330; i++ { // members, moved to the next group
		want = append(want, plainUser(i, fmt.Sprintf("G%d", (i+1)%3+1)))
	}
	for i := 350; i < 355; i++ { // outside the groups, wanting none of them
		want = append(want, plainUser(i))
	}
	for i := 360; i < 363; i++ { // outside the groups, wanting one
		want = append(want, plainUser(i, "G1"))
	}
	want = append(want, plainUser(0), plainUser(1, "G2")) // on the first organization page
	for i := 1000; i < 1004; i++ {                        // new
		want = append(want, plainUser(i, "G3"))
	}
	before := e.sim.Snapshot()
	plan, err := e.run(t, want, threePolicy)
	if err != nil {
		t.Fatal(err)
	}
	r := e.target.LastRead
	// 1 organization page + 3 group pages + 12 lookups (5 + 3 outside, 4 new) < 19 organization pages left.
	if !r.ByGroup || r.PagesRead != 4 || r.Lookups != 12 {
		t.Errorf("first read %+v: want by group, 4 pages, 12 lookups", r)
	}
	if c := plan.Counts(); c.Of(reconcile.KindCreate) != 4 || c.Of(reconcile.KindUpdate) != 34 || c.RemoveMemberships != 30 || c.AddMemberships != 38 {
		t.Errorf("first plan %+v: want the 4 new users created, 34 updated (+38 -30 memberships)", c)
	}
	if again := e.plan(t, want, threePolicy); !again.Empty() {
		t.Errorf("plan after apply is not empty:\n%s", render(again))
	}
	if r := e.target.LastRead; !r.ByGroup || r.Lookups != 5 {
		t.Errorf("second read %+v: want by group, the 5 users in no group looked up", r)
	}
	checkUntouched(t, before, e.sim.Snapshot(), threePolicy)
}

// TestReadCostDecision checks, request by request, which listing the
// reader chooses: the organization listing has 20 pages of 20 users.
func TestReadCostDecision(t *testing.T) {
	t.Parallel()
	members := func(from, to int) []reconcile.User {
		var us []reconcile.User
		for i := from; i < to; i++ {
			us = append(us, plainUser(i, fmt.Sprintf("G%d", i%3+1)))
		}
		return us
	}
	newUsers := func(n int) []reconcile.User {
		var us []reconcile.User
		for i := range n {
			us = append(us, plainUser(2000+i, "G1"))
		}
		return us
	}
	bigG1 := func(i int) []string { // G1: users 0..379 (19 pages)
		if i < 380 {
			return []string{"G1"}
		}
		return threeGroups(i)
	}
	remove := *threePolicy
	remove.Unmatched = reconcile.RemoveUsers
	tests := []struct {
		name      string
		groupsOf  func(int) []string
		pageSize  int
		policy    *reconcile.Policy
		want      []reconcile.User
		byGroup   bool
		pages     int
		lookups   int
		usersRead int
	}{
		{"members only: 1 + 3 group pages", threeGroups, 20, threePolicy, members(300, 330), true, 4, 0, 30},
		{"15 new users: 3 group pages + 15 lookups < 19 organization pages left", threeGroups, 20, threePolicy, append(members(300, 330), newUsers(15)...), true, 4, 15, 30},
		{"19 new users cost as much as the 19 organization pages left", threeGroups, 20, threePolicy, append(members(300, 330), newUsers(19)...), false, 4 + 19, 0, 400},
		// G2 and G3, which no user read is in, are looked up in one page
		// of the group listing: the plan adds members to them, so it must
		// know that they exist.
		{"a group of 19 pages: organization after one probe", bigG1, 20, threePolicy, members(300, 330), false, 2 + 19 + 1, 0, 400},
		{"removing unmatched users needs the whole organization", threeGroups, 20, &remove, members(300, 330), false, 20, 0, 400},
		{"one organization page is the whole read", threeGroups, 2000, threePolicy, members(300, 330), false, 1, 0, 400},
		// 380 desired users unseen need at least 19 pages of 20 (or lookups)
		// whatever the groups hold: no group is probed.
		{"more desired users than the pages left can list: no probe", threeGroups, 20, threePolicy, newUsers(380), false, 20, 0, 400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, plainOrg(400, tc.groupsOf), umsim.Options{PageSize: tc.pageSize})
			cur, err := e.target.ReadCurrent(context.Background(), needsFor(tc.policy, tc.want))
			if err != nil {
				t.Fatal(err)
			}
			r := e.target.LastRead
			if r.ByGroup != tc.byGroup || cur.ByGroup != tc.byGroup || r.PagesRead != tc.pages || r.Lookups != tc.lookups || cur.Users.Len() != tc.usersRead {
				t.Errorf("read %+v, %d users; want by group %v, %d pages, %d lookups, %d users",
					r, cur.Users.Len(), tc.byGroup, tc.pages, tc.lookups, tc.usersRead)
			}
			st := e.sim.Stats()
			if got := st.Count("user", 404) + st.Count("user", 200); got != tc.lookups {
				t.Errorf("the simulator answered %d lookups, the report says %d", got, tc.lookups)
			}
		})
	}
}

// TestReadThreeGroupsOfAHugeOrganization scales the example down
// in page size: three groups of an organization of 150 pages, every
// desired user a member, cost 1 + 3 pages, not 150.
func TestReadThreeGroupsOfAHugeOrganization(t *testing.T) {
	t.Parallel()
	in := func(i int) []string {
		if i%100 == 7 {
			return []string{fmt.Sprintf("G%d", i%3+1)}
		}
		return []string{"Other"}
	}
	e := newEnv(t, plainOrg(3000, in), umsim.Options{PageSize: 20})
	var want []reconcile.User
	for i := 7; i < 3000; i += 100 {
		want = append(want, plainUser(i, "G1"))
	}
	if _, err := e.target.ReadCurrent(context.Background(), needsFor(threePolicy, want)); err != nil {
		t.Fatal(err)
	}
	if r := e.target.LastRead; r.OrgPages != 150 || !r.ByGroup || r.PagesRead != 4 || r.Lookups != 0 {
		t.Errorf("read %+v: want 150 organization pages known, 4 pages read by group, no lookup", r)
	}
}

// TestConvergenceByGroup runs random states that the reader reads by group
// (a large organization, a few small managed groups, desired users inside
// and outside them, new ones), with and without injected faults: after
// one run (two with faults) the plan is empty, and nothing unmanaged or
// excluded changed.
func TestConvergenceByGroup(t *testing.T) {
	t.Parallel()
	for seed := range 6 {
		faults := seed >= 4
		t.Run(fmt.Sprintf("seed %d faults %v", seed, faults), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(seed), 5))
			in := func(int) []string {
				var gs []string
				for _, g := range []string{"G1", "G2", "G3", "Other"} {
					if rng.IntN(25) == 0 {
						gs = append(gs, g)
					}
				}
				return gs
			}
			st := plainOrg(600, in)
			pol := *threePolicy
			pol.Unmatched = []reconcile.Unmatched{reconcile.Preserve, reconcile.RemoveGroups}[seed%2]
			var want []reconcile.User
			for i, u := range st.Users {
				if (inAny(u.Groups, pol.Managed) && rng.IntN(5) > 0) || rng.IntN(60) == 0 {
					want = append(want, plainUser(i, randomGroups(rng)...))
				}
			}
			for i := range 3 {
				want = append(want, plainUser(5000+i, randomGroups(rng)...))
			}
			e := newEnv(t, st, umsim.Options{PageSize: 20})
			before := e.sim.Snapshot()
			if faults {
				e.sim.SetFaults(gate.Faults{Seed: int64(seed), ErrorRate: 0.1, AmbiguousRate: 0.1})
			}
			for run := range 1 + btoi(faults) {
				plan, err := e.run(t, want, &pol)
				if err != nil && !faults {
					t.Fatal(err)
				}
				if r := e.target.LastRead; run == 0 && (!r.ByGroup || r.Lookups == 0 || plan.Counts().Of(reconcile.KindCreate) == 0) {
					t.Fatalf("read %+v, plan %+v: want a read by group with lookups and creates, the test would prove little", r, plan.Counts())
				}
			}
			if n := e.sim.Stats().Faults; faults && len(n) == 0 {
				t.Fatal("no fault was injected; the test would prove nothing")
			}
			e.sim.SetFaults(gate.Faults{})
			if again := e.plan(t, want, &pol); !again.Empty() {
				t.Errorf("plan after apply is not empty:\n%s", render(again))
			}
			checkUntouched(t, before, e.sim.Snapshot(), &pol)
		})
	}
}

// randomGroups is none to three of G1, G2, G3.
func randomGroups(rng *rand.Rand) []string {
	var gs []string
	for _, g := range []string{"G1", "G2", "G3"} {
		if rng.IntN(3) == 0 {
			gs = append(gs, g)
		}
	}
	return gs
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestReadByGroupReadsAGroupNamedTwiceOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, plainOrg(400, threeGroups), umsim.Options{PageSize: 20})
	pol := *threePolicy
	pol.ExcludeGroups = []string{"g2"} // also managed
	// ReadNeeds (desired users unknown) reads the excluding groups too.
	if _, err := e.target.ReadCurrent(context.Background(), pol.ReadNeeds()); err != nil {
		t.Fatal(err)
	}
	if r := e.target.LastRead; !r.ByGroup || r.PagesRead != 4 {
		t.Errorf("read %+v: want 1 organization page and 3 group pages", r)
	}
}

// TestReadByGroupSkipsExcludingGroups: with the desired users known, the
// members of an excluding group are not listed; a desired user in it only
// is looked up, shows the group, and is left alone.
func TestReadByGroupSkipsExcludingGroups(t *testing.T) {
	t.Parallel()
	e := newEnv(t, plainOrg(400, threeGroups), umsim.Options{PageSize: 20})
	pol := *threePolicy
	pol.ExcludeGroups = []string{"Other"} // users 350..369
	want := []reconcile.User{plainUser(300, "G1"), plainUser(350, "G1")}
	before := e.sim.Snapshot()
	plan, err := e.run(t, want, &pol)
	if err != nil {
		t.Fatal(err)
	}
	if r := e.target.LastRead; !r.ByGroup || r.PagesRead != 4 || r.Lookups != 1 {
		t.Errorf("read %+v: want the 3 managed groups read after the first organization page, user 350 looked up", r)
	}
	if plan.Excluded != 1 {
		t.Errorf("plan excluded %d users, want 1 (user 350, in Other)", plan.Excluded)
	}
	checkUntouched(t, before, e.sim.Snapshot(), &pol)
	for _, u := range e.sim.Snapshot().Users {
		if u.Email == plainEmail(350) && inAny(u.Groups, []string{"G1"}) {
			t.Errorf("excluded user %s was added to G1", u.Email)
		}
	}
}

// An independent ID outside the groups read is looked up with the domain
// VendorID: an Enterprise ID with the same email is not taken for it.
func TestLookupOfAnIndependentID(t *testing.T) {
	t.Parallel()
	st := plainOrg(400, threeGroups)
	st.Users = append(st.Users,
		umsim.User{Type: umwire.TypeEnterpriseID, Email: "same@example.com", FirstName: "E", LastName: "L", Country: "US"},
		umsim.User{Type: umwire.TypeVendorID, Email: "same@example.com", FirstName: "V", LastName: "L", Country: "US", Groups: []string{"Other"}})
	e := newEnv(t, st, umsim.Options{PageSize: 20})
	want := []reconcile.User{plainUser(300, "G1"), {Type: reconcile.VendorID, Email: "same@example.com", Country: "US"}}
	cur, err := e.target.ReadCurrent(context.Background(), needsFor(threePolicy, want))
	if err != nil {
		t.Fatal(err)
	}
	if r := e.target.LastRead; !r.ByGroup || r.Lookups != 1 {
		t.Fatalf("read %+v: want by group with one lookup", r)
	}
	for _, u := range cur.Users.All() {
		if u.Email == "same@example.com" && u.Type != reconcile.VendorID {
			t.Errorf("the lookup found the %s, not the independent ID", u.Type)
		}
	}
}

// Technical accounts filling the first pages leave them empty but not the
// last: the organization is read to its end all the same.
func TestEmptyFirstPagesAreNotTheEnd(t *testing.T) {
	t.Parallel()
	st := plainOrg(3, threeGroups)
	techs := []umsim.User{
		{Type: umwire.TypeUnknown, Email: "t1@techacct.example.com", TechnicalAccount: true},
		{Type: umwire.TypeUnknown, Email: "t2@techacct.example.com", TechnicalAccount: true},
	}
	st.Users = append(techs, st.Users...)
	e := newEnv(t, st, umsim.Options{PageSize: 1})
	scope := policy(reconcile.Preserve).ReadNeeds()
	scope.CheckGroups = nil // only the listing's pages are counted
	cur, err := e.target.ReadCurrent(context.Background(), scope)
	if err != nil {
		t.Fatal(err)
	}
	if cur.Users.Len() != 3 || e.target.LastRead.PagesRead != 5 {
		t.Errorf("%d users in %d pages, want 3 in 5", cur.Users.Len(), e.target.LastRead.PagesRead)
	}
}
