package reconcile

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// A target that does not exist is created as a user group under
// CreateUserGroups, unless it is an admin group; otherwise it is reported
// with the number of users who wanted it, and no membership of it is
// planned. Apply sends the rest and reports it, with what to do, naming
// the setting that creates user groups as the policy's Names do.
func TestMissingTargets(t *testing.T) {
	t.Parallel()
	des := Desired{Complete: true, Users: UsersOf([]User{ent("a@x.com", "A", "Dev", "Design", "_admin_X"), ent("b@x.com", "B", "Dev")}...)}
	cur := &Current{Users: UsersOf([]User{ent("a@x.com", "A", "Design")}...), Missing: []string{"Dev", "_admin_X"}}
	for _, create := range []bool{false, true} {
		pol := basePolicy()
		pol.Managed = append(pol.Managed, "_admin_X")
		pol.CreateUserGroups = create
		pol.Names = func(s Setting) string { return "<the key of " + string(s) + ">" }
		p, err := Diff(des, cur, validPolicy(t, pol))
		if err != nil {
			t.Fatal(err)
		}
		want := []MissingGroup{{Name: "_admin_X", Users: 1}}
		if !create {
			want = []MissingGroup{{Name: "Dev", Users: 2}, {Name: "_admin_X", Users: 1}}
		}
		if !slices.Equal(p.MissingGroups, want) || p.InSync() {
			t.Errorf("create %v: missing %+v, want %+v (and not in sync)", create, p.MissingGroups, want)
		}
		if got := findChange(p, KindCreateGroup, "Dev") != nil; got != create {
			t.Errorf("create %v: Dev created %v", create, got)
		}
		for _, c := range p.Changes {
			if slices.Contains(c.Add, "_admin_X") || (!create && slices.Contains(c.Add, "Dev")) {
				t.Errorf("create %v: change %s adds a missing group", create, show(c))
			}
		}
		// b's only group is Dev: without it, nothing maps b to the
		// organization, so b is not created there (with no groups).
		if b := findChange(p, KindCreate, "b@x.com"); (b != nil) != create {
			t.Errorf("create %v: b@x.com created %v, want %v", create, b != nil, create)
		}
		if noted := slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, "b@x.com is not created") }); noted == create {
			t.Errorf("create %v: notes %q", create, p.Notes)
		}
		s := &fakeSender{}
		_, err = Apply(context.Background(), p, s, ApplyOptions{})
		var me *MissingGroupsError
		if !errors.As(err, &me) || len(me.Groups) != len(want) || (create && len(s.requests) == 0) {
			t.Errorf("create %v: Apply error %v after %d requests, want the rest sent and the missing groups reported", create, err, len(s.requests))
		}
		hint := "set <the key of createUserGroups>: true to have orgsync create it as a user group"
		if err != nil && strings.Contains(err.Error(), hint) == create {
			t.Errorf("create %v: Apply error %q; want %q for the missing user group only", create, err, hint)
		}
	}
}
