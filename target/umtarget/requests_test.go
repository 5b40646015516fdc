package umtarget

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
)

// TestRequestCounts counts every request one run (read, plan, apply) sends
// to the simulator, by endpoint, on typical scenarios, against the fewest
// computed by hand (the comments give the reasoning). A run's one
// unavoidable read before any decision is the first organization page:
// its X-Page-Count prices the organization listing.
func TestRequestCounts(t *testing.T) {
	t.Parallel()
	newUsers := func(from, n int, vendors int) []reconcile.User {
		var us []reconcile.User
		for i := range n {
			u := plainUser(from+i, fmt.Sprintf("G%d", i%3+1))
			if i%2 == 0 {
				u.Groups = append(u.Groups, fmt.Sprintf("G%d", (i+1)%3+1))
			}
			if i < vendors {
				u.Type, u.Email = reconcile.VendorID, fmt.Sprintf("v%04d@gmail.com", from+i)
			}
			us = append(us, u)
		}
		return us
	}
	// A big organization: 2000 users, 20 pages of 100; users 1000..1089
	// in G1, G2 or G3.
	big := func() *umsim.State { return plainOrg(2000, threeGroupsOf) }
	drift := func() []reconcile.User { // all but 2 users, 2 renamed, 1 new
		var us []reconcile.User
		for i := 2; i < 2000; i++ {
			u := plainUser(i, threeGroupsOf(i)...)
			if i%700 == 0 {
				u.FirstName = "Renamed"
			}
			us = append(us, u)
		}
		return append(us, plainUser(3000, "G1"))
	}
	groupDrift := func() []reconcile.User { // members but 2, 2 renamed, 1 new
		var us []reconcile.User
		for i := 1002; i < 1090; i++ {
			u := plainUser(i, threeGroupsOf(i)...)
			if i < 1004 {
				u.FirstName = "Renamed"
			}
			us = append(us, u)
		}
		return append(us, plainUser(3000, "G1"))
	}
	moved := func() []reconcile.User { // 15 members of G1 move to G2
		var us []reconcile.User
		for i := 1000; i < 1090; i++ {
			u := plainUser(i, threeGroupsOf(i)...)
			if i%3 == 0 && i < 1045 {
				u.Groups = []string{"G2"}
			}
			us = append(us, u)
		}
		return us
	}
	invited := func() *umsim.State { // big, with 3 pending invites
		st := big()
		for i := range 3 {
			st.Invites = append(st.Invites, umsim.Invite{Email: fmt.Sprintf("v%d@gmail.com", i), LastSentDTS: time.Now().UnixMilli()})
		}
		return st
	}
	invitedToo := func() []reconcile.User { // the members, and the 3 invited independent IDs
		var us []reconcile.User
		for i := 1000; i < 1090; i++ {
			us = append(us, plainUser(i, threeGroupsOf(i)...))
		}
		for i := range 3 {
			us = append(us, reconcile.User{Type: reconcile.VendorID, Email: fmt.Sprintf("v%d@gmail.com", i), Groups: []string{"G1"}})
		}
		return us
	}
	lapsed := func() *umsim.State { // empty, with the expired invites of v0100..v0104
		st := plainOrg(0, nil)
		for i := range 5 {
			st.Invites = append(st.Invites, umsim.Invite{Email: fmt.Sprintf("v%04d@gmail.com", 100+i), LastSentDTS: time.Now().Add(-40 * 24 * time.Hour).UnixMilli()})
		}
		return st
	}
	remove, preserve := *threePolicy, *threePolicy
	remove.Unmatched, preserve.Unmatched = reconcile.RemoveUsers, reconcile.Preserve
	reinvite := *threePolicy
	reinvite.ResendExpiredInvites = true // as the configuration's default
	create := remove
	create.Managed = []string{"G1", "G2", "G3", "New"}
	create.UserGroups, create.CreateUserGroups = create.Managed, true
	tests := []struct {
		name     string
		state    *umsim.State
		pageSize int
		policy   *reconcile.Policy
		want     []reconcile.User
		requests map[string]int
	}{
		{
			// token; the only organization page; one page of the group
			// listing (no user is in the groups yet: the plan must know
			// they exist before it adds members), not one probe per
			// group; 35 creates in 4 requests. No desired independent
			// ID: no invite can change the plan.
			name: "first load of 35 users with groups", state: plainOrg(0, nil), policy: threePolicy,
			want:     newUsers(0, 35, 0),
			requests: map[string]int{gate.EndpointToken: 1, gate.EndpointUsers: 1, gate.EndpointGroups: 1, gate.EndpointAction: 4},
		},
		{
			// as above, plus the listing of pending invites: an invited
			// independent ID must not be invited again (none pending);
			// any other is invited, whether an invite of theirs expired
			// or none was sent (the same addVendorID): 3 reads, the
			// pages needed.
			name: "first load of 35 users, 5 independent IDs", state: plainOrg(0, nil), policy: &reinvite,
			want:     newUsers(0, 35, 5),
			requests: map[string]int{gate.EndpointToken: 1, gate.EndpointUsers: 1, gate.EndpointGroups: 1, gate.EndpointInvites: 1, gate.EndpointAction: 4},
		},
		{
			// as above with resendExpired off: a user whose invite
			// expired is held back, which takes the listing with the
			// expired ones too.
			name: "first load of 35 users, 5 independent IDs, expired invites held back", state: plainOrg(0, nil), policy: threePolicy,
			want:     newUsers(0, 35, 5),
			requests: map[string]int{gate.EndpointToken: 1, gate.EndpointUsers: 1, gate.EndpointGroups: 1, gate.EndpointInvites: 2, gate.EndpointAction: 4},
		},
		{
			// token; the only organization page; one page of the group
			// listing; the listing of pending invites (none: the 5 have
			// expired); the 46 creates and the 5 invited again
			// (addVendorID with their groups) are 51 entries: 6
			// requests, the fewest, and no resend (an expired invite is
			// not pending: resend is defined on pending invites).
			name: "46 new users and 5 expired invites", state: lapsed(), policy: &reinvite,
			want:     newUsers(100, 51, 5),
			requests: map[string]int{gate.EndpointToken: 1, gate.EndpointUsers: 1, gate.EndpointGroups: 1, gate.EndpointInvites: 1, gate.EndpointAction: 6},
		},
		{
			// token; all 20 pages (unmatched users are removed); 2
			// removals, 2 renames and a create in one request.
			name: "small drift in a big organization", state: big(), pageSize: 100, policy: &remove,
			want:     drift(),
			requests: map[string]int{gate.EndpointToken: 1, gate.EndpointUsers: 20, gate.EndpointAction: 1},
		},
		{
			// as above; G1, G2 and G3 have members, so only New is
			// probed through its member listing (absent: one request,
			// as the group listing would cost); its createUserGroup
			// entry joins the same request.
			name: "small drift, a group to create", state: big(), pageSize: 100, policy: &create,
			want:     drift(),
			requests: map[string]int{gate.EndpointToken: 1, gate.EndpointUsers: 20, gate.EndpointGroupUsers: 1, gate.EndpointAction: 1},
		},
		{
			// token; the first organization page (20 pages: reading the
			// three groups is cheaper); one page per group; one lookup
			// (the new user: it might exist outside the groups); 2 users
			// leaving their group, 2 renames and a create in one request.
			name: "small drift in 3 groups of a big organization", state: big(), pageSize: 100, policy: threePolicy,
			want:     groupDrift(),
			requests: map[string]int{gate.EndpointToken: 1, gate.EndpointUsers: 1, gate.EndpointGroupUsers: 3, gate.EndpointUser: 1, gate.EndpointAction: 1},
		},
		{
			// token; the first organization page (20 pages); one probe
			// per group, which shows that the 35 desired users are in
			// none: 35 lookups would cost more than the 19 pages left,
			// which are read; 35 creates in 4 requests. The fewest is 25:
			// the probes are spent learning that the groups do not help.
			name: "first load of 35 users into a big organization", state: big(), pageSize: 100, policy: &preserve,
			want:     newUsers(3000, 35, 0),
			requests: map[string]int{gate.EndpointToken: 1, gate.EndpointUsers: 20, gate.EndpointGroupUsers: 3, gate.EndpointAction: 4},
		},
		{
			// token; the first organization page (20 pages: reading the
			// three groups is cheaper); one page per group; no lookup
			// (every desired user is a member); 15 moves as two
			// group-rooted entries in one request.
			name: "membership change in 3 groups of a big organization", state: big(), pageSize: 100, policy: threePolicy,
			want:     moved(),
			requests: map[string]int{gate.EndpointToken: 1, gate.EndpointUsers: 1, gate.EndpointGroupUsers: 3, gate.EndpointAction: 1},
		},
		{
			// token; the first organization page (20 pages); one page per
			// group; the listing of pending invites (3 desired independent
			// IDs are in no group) shows them invited, so they are not
			// looked up, and the listing with the expired ones is not read
			// (an invited user is not a member); a pending invite is left
			// alone (its groups went with it): no action request.
			name: "3 invited independent IDs and 3 groups of a big organization", state: invited(), pageSize: 100, policy: threePolicy,
			want:     invitedToo(),
			requests: map[string]int{gate.EndpointToken: 1, gate.EndpointUsers: 1, gate.EndpointGroupUsers: 3, gate.EndpointInvites: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.state, umsim.Options{PageSize: tc.pageSize})
			if _, err := e.run(t, tc.want, tc.policy); err != nil {
				t.Fatal(err)
			}
			if got := byEndpoint(e.sim.Stats()); !maps.Equal(got, tc.requests) {
				t.Errorf("requests by endpoint %v, want %v", got, tc.requests)
			}
			if again := e.plan(t, tc.want, tc.policy); !again.Empty() {
				t.Errorf("plan after apply is not empty:\n%s", render(again))
			}
		})
	}
}

// threeGroupsOf puts users 1000..1089 of a big organization in G1, G2 or
// G3.
func threeGroupsOf(i int) []string {
	if i >= 1000 && i < 1090 {
		return []string{fmt.Sprintf("G%d", i%3+1)}
	}
	return nil
}

// byEndpoint sums the simulator's answers by endpoint, whatever the status.
func byEndpoint(s gate.Stats) map[string]int {
	out := map[string]int{}
	for ep, byStatus := range s.Requests {
		for _, n := range byStatus {
			out[ep] += n
		}
	}
	return out
}
