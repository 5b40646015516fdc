package umtarget

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
)

func TestInvitesRespectedRevokedResent(t *testing.T) {
	t.Parallel()
	now := time.Now()
	ms := func(ago time.Duration) int64 { return now.Add(-ago).UnixMilli() }
	st := randomOrg(nil, 0)
	st.Invites = []umsim.Invite{
		{Email: "pending@gmail.com", LastSentDTS: ms(24 * time.Hour)},
		{Email: "old@gmail.com", LastSentDTS: ms(40 * 24 * time.Hour)},
		{Email: "stray@gmail.com", LastSentDTS: ms(24 * time.Hour)},
	}
	e := newEnv(t, st, umsim.Options{})
	want := []reconcile.User{
		{Type: reconcile.VendorID, Email: "pending@gmail.com", Groups: []string{"G1"}},
		{Type: reconcile.VendorID, Email: "old@gmail.com", Groups: []string{"G1"}},
		{Type: reconcile.VendorID, Email: "fresh@gmail.com", Groups: []string{"G2"}},
	}
	pol := policy(reconcile.Preserve)
	pol.RevokeUnmatchedInvites, pol.ResendExpiredInvites = true, true
	plan, err := e.run(t, want, pol)
	if err != nil {
		t.Fatal(err)
	}
	// old@'s invite expired: with no pending invite, old@ is invited as
	// fresh@ is (the pending listing alone is read).
	c := plan.Counts()
	if c.Of(reconcile.KindCreate) != 2 || c.Of(reconcile.KindResendInvite) != 0 || c.Of(reconcile.KindRevokeInvite) != 1 || e.target.LastRead.InviteBatches != 1 {
		t.Errorf("plan: %+v, %d invite listing calls; want fresh@ and old@ invited, stray@ revoked, pending@ left alone, from the pending listing alone",
			c, e.target.LastRead.InviteBatches)
	}
	got := map[string]int64{}
	for _, in := range e.sim.Snapshot().Invites {
		got[in.Email] = in.LastSentDTS
	}
	if _, ok := got["stray@gmail.com"]; ok {
		t.Error("stray@gmail.com's invite was not revoked")
	}
	if got["old@gmail.com"] <= ms(time.Hour) {
		t.Error("old@gmail.com's invite was not resent")
	}
	if _, ok := got["fresh@gmail.com"]; !ok {
		t.Error("fresh@gmail.com was not invited")
	}
	if again := e.plan(t, want, pol); !again.Empty() {
		t.Errorf("plan after apply is not empty:\n%s", render(again))
	}
}

// TestInviteWithMoreMembershipsThanAnEntryHolds: a new independent ID is
// only invited, so the memberships beyond the first entry's ten ride on a
// repeated addVendorID (which finds the pending invite) instead of an add
// the service refuses for a user who is not a member.
func TestInviteWithMoreMembershipsThanAnEntryHolds(t *testing.T) {
	t.Parallel()
	st := randomOrg(nil, 0)
	pol := &reconcile.Policy{}
	for i := range 13 {
		g := fmt.Sprintf("Team %02d", i)
		st.UserGroups = append(st.UserGroups, umsim.UserGroup{Name: g})
		pol.Managed = append(pol.Managed, g)
	}
	pol.UserGroups = pol.Managed
	e := newEnv(t, st, umsim.Options{})
	want := []reconcile.User{{Type: reconcile.VendorID, Email: "many@gmail.com", Groups: pol.Managed}}
	if _, err := e.run(t, want, pol); err != nil {
		t.Fatal(err)
	}
	invites := e.sim.Snapshot().Invites
	if len(invites) != 1 || len(invites[0].Groups) != 13 {
		t.Fatalf("invites %+v: want many@gmail.com invited with its 13 groups", invites)
	}
	if again := e.plan(t, want, pol); !again.Empty() {
		t.Errorf("plan after apply is not empty:\n%s", render(again))
	}
}

// A desired independent ID whose invite expired ends up with a pending
// invite after one sync (addVendorID, a new invite), whether or not the
// service would also resend an expired invite; a pending invite is left alone
// (its groups went with it when sent), so the next plan is in sync and
// sends nothing, and a group the source added meanwhile reaches the user
// in the first run after acceptance.
func TestExpiredInviteInvitedAgain(t *testing.T) {
	t.Parallel()
	for _, resendable := range []bool{false, true} {
		t.Run(fmt.Sprintf("service resends expired invites: %v", resendable), func(t *testing.T) {
			now := time.Now()
			st := randomOrg(nil, 0)
			st.Invites = []umsim.Invite{
				{Email: "old@gmail.com", LastSentDTS: now.Add(-40 * 24 * time.Hour).UnixMilli(), Groups: []string{"G1"}},
				{Email: "pending@gmail.com", LastSentDTS: now.Add(-24 * time.Hour).UnixMilli(), Groups: []string{"G1"}},
			}
			e := newEnv(t, st, umsim.Options{ResendExpired: resendable})
			want := []reconcile.User{
				{Type: reconcile.VendorID, Email: "old@gmail.com", Groups: []string{"G1", "G2"}},
				{Type: reconcile.VendorID, Email: "pending@gmail.com", Groups: []string{"G1", "G3"}},
				{Type: reconcile.VendorID, Email: "new@gmail.com", Groups: []string{"G2"}},
			}
			pol := policy(reconcile.Preserve)
			pol.ResendExpiredInvites = true
			plan, err := e.run(t, want, pol)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.InviteGroups) != 0 {
				t.Errorf("the sync sent a pending invite's groups again:\n%s", render(plan))
			}
			again := e.plan(t, want, pol)
			if !again.InSync() || len(again.InviteGroups) != 0 {
				t.Errorf("plan after one sync: in sync %v, %d invites' groups; want in sync and none:\n%s", again.InSync(), len(again.InviteGroups), render(again))
			}
			before := e.sim.Stats().Requests[gate.EndpointAction][200]
			if _, err := e.run(t, want, pol); err != nil {
				t.Fatal(err)
			}
			if n := e.sim.Stats().Requests[gate.EndpointAction][200] - before; n != 0 {
				t.Errorf("a second sync sent %d action requests, want none", n)
			}
			for _, u := range want {
				if err := e.sim.AcceptInvite(u.Email); err != nil {
					t.Fatalf("%s: %v", u.Email, err)
				}
			}
			if _, err := e.run(t, want, pol); err != nil { // pending@ gets G3, added while invited
				t.Fatal(err)
			}
			for _, su := range e.sim.Snapshot().Users {
				for _, u := range want {
					if su.Email == u.Email && !slices.Equal(su.Groups, u.Groups) {
						t.Errorf("%s accepted with groups %v, want %v", u.Email, su.Groups, u.Groups)
					}
				}
			}
		})
	}
}

// The service's invite listings say which invites are pending, whatever
// its expiry period (the specification does not give it; contract 7 says
// 30 days): an invite sent 15 days ago is invited again by a service
// whose invites expire after 10, and one sent 40 days ago is left alone
// by a service whose invites last 60. The listings are paged at 200
// invites a call: 250 pending invites are 2 calls, all a run reads when
// a user with no pending invite is invited anyway (resendExpired, the
// default); with resendExpired off, the expired invite is held back,
// which takes the listing with the expired ones too (250 pending and 200
// expired invites: 3 calls more). Once the expired invite is sent again,
// the pending listing alone (2 calls) shows every desired user invited,
// and the next plan is in sync.
func TestInviteListingsSayWhatIsPending(t *testing.T) {
	t.Parallel()
	now := time.Now()
	for _, tc := range []struct {
		name     string
		expiry   time.Duration
		sentAgo  time.Duration
		resend   bool // resendExpired
		reinvite bool
		calls    int // invite listing calls of the first read
	}{
		{"invites expire after 10 days; sent 15 days ago", 10 * 24 * time.Hour, 15 * 24 * time.Hour, true, true, 2},
		{"invites last 60 days; sent 40 days ago", 60 * 24 * time.Hour, 40 * 24 * time.Hour, true, false, 2},
		{"invites expire after 10 days; sent 15 days ago; resendExpired off", 10 * 24 * time.Hour, 15 * 24 * time.Hour, false, false, 2 + 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := randomOrg(nil, 0)
			for i := range 250 {
				st.Invites = append(st.Invites, umsim.Invite{Email: fmt.Sprintf("pending%03d@gmail.com", i), LastSentDTS: now.Add(-time.Hour).UnixMilli()})
			}
			for i := range 199 {
				st.Invites = append(st.Invites, umsim.Invite{Email: fmt.Sprintf("lapsed%03d@gmail.com", i), LastSentDTS: now.Add(-tc.expiry - time.Hour).UnixMilli()})
			}
			st.Invites = append(st.Invites, umsim.Invite{Email: "asked@gmail.com", LastSentDTS: now.Add(-tc.sentAgo).UnixMilli()})
			e := newEnv(t, st, umsim.Options{InviteExpiry: tc.expiry})
			want := []reconcile.User{
				{Type: reconcile.VendorID, Email: "pending007@gmail.com", Groups: []string{"G1"}},
				{Type: reconcile.VendorID, Email: "pending249@gmail.com", Groups: []string{"G1"}},
				{Type: reconcile.VendorID, Email: "asked@gmail.com", Groups: []string{"G2"}},
			}
			pol := policy(reconcile.Preserve)
			pol.ResendExpiredInvites = tc.resend
			plan, err := e.run(t, want, pol)
			if err != nil {
				t.Fatal(err)
			}
			if c := plan.Counts(); (c.Of(reconcile.KindCreate) == 1) != tc.reinvite || c.Of(reconcile.KindResendInvite)+c.Of(reconcile.KindUpdate)+c.Of(reconcile.KindInviteGroups) != 0 {
				t.Errorf("plan: %+v; want asked@gmail.com invited again: %v, nothing else", c, tc.reinvite)
			}
			if got := e.target.LastRead.InviteBatches; got != tc.calls {
				t.Errorf("%d invite listing calls, want %d", got, tc.calls)
			}
			if n := byEndpoint(e.sim.Stats())[gate.EndpointInvites]; n != tc.calls {
				t.Errorf("%d requests to the invite endpoints, want the %d listing calls and no resend", n, tc.calls)
			}
			again := e.plan(t, want, pol)
			if !again.Empty() {
				t.Errorf("plan after the sync is not empty:\n%s", render(again))
			}
			afterwards := 2 // the pending listing
			if !tc.resend {
				afterwards = tc.calls // asked@ is still held back
			}
			if got := e.target.LastRead.InviteBatches; got != afterwards {
				t.Errorf("the plan after the sync made %d invite listing calls, want %d", got, afterwards)
			}
		})
	}
}
