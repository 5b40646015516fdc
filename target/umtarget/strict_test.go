package umtarget

import (
	"context"
	"testing"
	"time"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umwire"
)

// A strict create fails on a user that exists or an invite that is
// pending, where the usual one updates it or leaves it alone: the service
// says so with error.user.already_exists or already_invited.
func TestStrictCreatesFailOnWhatExists(t *testing.T) {
	t.Parallel()
	st := plainOrg(2, func(int) []string { return []string{"G1"} })
	st.Invites = []umsim.Invite{{Email: "inv@gmail.example", LastSentDTS: time.Now().UnixMilli()}}
	e := newEnv(t, st, umsim.Options{})
	create := func(u reconcile.User, strict bool) reconcile.Entry {
		return reconcile.Entry{User: &u, Steps: []reconcile.Step{{Kind: reconcile.StepCreate, Create: &u, Strict: strict},
			{Kind: reconcile.StepAdd, Groups: []string{"G2"}}}}
	}
	invited := reconcile.User{Type: reconcile.VendorID, Email: "inv@gmail.example", Country: "US"}
	fresh := plainUser(7)
	req := reconcile.Request{Entries: []reconcile.Entry{create(plainUser(0), true), create(invited, true), create(fresh, true), create(plainUser(1), false)}}
	failed, err := e.target.Send(context.Background(), req, false)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]string{}
	for _, f := range failed {
		got[f.Index] = f.Code
	}
	want := map[int]string{0: umwire.ErrUserExists, 1: umwire.ErrUserInvited}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("failures %v, want %v (a new user and a usual create succeed)", got, want)
	}
}

// CheckGroups tells which groups do not exist without reading a user.
func TestCheckGroupsReadsNoUser(t *testing.T) {
	t.Parallel()
	e := newEnv(t, plainOrg(30, threeGroups), umsim.Options{PageSize: 10})
	missing, err := e.target.CheckGroups(context.Background(), []string{"G1", "g2", "Nope", "Other", "Gone"})
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) != 2 || missing[0] != "Nope" || missing[1] != "Gone" {
		t.Errorf("missing %q, want Nope and Gone", missing)
	}
	st := e.sim.Stats()
	if n := st.Count("users", 200) + st.Count("groupUsers", 200); n != 0 {
		t.Errorf("%d user listing pages read, want none", n)
	}
}
