package reconcile

import (
	"testing"
	"time"
)

// TestScopeNeverRemovesOutOfScopeUsers runs every destructive policy
// with each kind of scope: a user outside the scope is never removed,
// deleted, stripped of a group, nor has its invite revoked, while users
// in scope are handled as in a whole run.
func TestScopeNeverRemovesOutOfScopeUsers(t *testing.T) {
	t.Parallel()
	cur := &Current{
		Users: UsersOf([]User{
			ent("filtered@x.com", "F", "Design"), // a source's filter left it out
			ent("gone@x.com", "G", "Dev"),        // in no source
			ent("kept@x.com", "K", "Dev"),        // in a source, in scope
			ent("other@x.com", "O", "Design"),    // in a source, not named by Only
		}...),
		Invites: []Invite{{Email: "inv@x.com", LastSent: time.Now()}, {Email: "outinv@x.com", LastSent: time.Now()}},
	}
	desired := func() Users { return UsersOf(ent("kept@x.com", "K"), ent("other@x.com", "O")) }
	out := []User{{Type: EnterpriseID, Email: "FILTERED@x.com"}, {Type: VendorID, Email: "outinv@x.com"}}
	tests := []struct {
		name    string
		scope   Scope
		removed []string // keys removed from the organization
		stays   []string // keys with no change at all
		revoked []string // invites revoked
		out     int      // OutOfScope
	}{
		{"no scope removes the filtered user too", Scope{}, []string{"filtered@x.com", "gone@x.com"}, nil, []string{"inv@x.com", "outinv@x.com"}, 0},
		{"filtered users are left alone", Scope{Out: out}, []string{"gone@x.com"}, []string{"filtered@x.com"}, []string{"inv@x.com"}, 1},
		{"directory-group scope keeps every unmatched user", Scope{Out: out, KeepUnmatched: true}, nil, []string{"filtered@x.com", "gone@x.com"}, nil, 2},
		{"a file of users acts on those only", Scope{Only: map[string]bool{"gone@x.com": true, "kept@x.com": true}},
			[]string{"gone@x.com"}, []string{"filtered@x.com", "other@x.com"}, nil, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := basePolicy()
			p.Unmatched = DeleteUsers
			p.RevokeUnmatchedInvites = true
			plan, err := Diff(Desired{Users: desired(), Complete: true, Scope: tt.scope}, cur, validPolicy(t, p))
			if err != nil {
				t.Fatal(err)
			}
			if plan.Safety != nil {
				t.Fatalf("safety stopped the plan: %v", plan.Safety)
			}
			for _, k := range tt.removed {
				if findChange(plan, KindDelete, k) == nil {
					t.Errorf("%s not deleted: %v", k, plan.Changes)
				}
			}
			for _, k := range tt.stays {
				for _, c := range plan.Changes {
					if c.Key() == k {
						t.Errorf("out-of-scope user %s changed: %s", k, show(c))
					}
				}
			}
			if n := countKind(plan, KindDelete) + countKind(plan, KindRemove); n != len(tt.removed) {
				t.Errorf("%d removals, want %d: %v", n, len(tt.removed), plan.Changes)
			}
			for _, k := range tt.revoked {
				if findChange(plan, KindRevokeInvite, k) == nil {
					t.Errorf("invite of %s not revoked", k)
				}
			}
			if n := countKind(plan, KindRevokeInvite); n != len(tt.revoked) {
				t.Errorf("%d invites revoked, want %d", n, len(tt.revoked))
			}
			if plan.OutOfScope != tt.out {
				t.Errorf("OutOfScope = %d, want %d", plan.OutOfScope, tt.out)
			}
		})
	}
}

// TestScopeOnlySkipsUnnamedDesiredUsers checks that a file scope neither
// creates nor updates the users of the sources it does not name.
func TestScopeOnlySkipsUnnamedDesiredUsers(t *testing.T) {
	t.Parallel()
	cur := &Current{Users: UsersOf([]User{ent("a@x.com", "Old", "Dev")}...)}
	des := Desired{Complete: true, Users: UsersOf([]User{ent("a@x.com", "New", "Design"), ent("b@x.com", "B", "Dev")}...),
		Scope: Scope{Only: map[string]bool{"b@x.com": true}}}
	plan, err := Diff(des, cur, validPolicy(t, basePolicy()))
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Changes) != 1 || findChange(plan, KindCreate, "b@x.com") == nil {
		t.Fatalf("changes = %v, want only the creation of b@x.com", plan.Changes)
	}
	if plan.OutOfScope != 1 || plan.Unmatched.Len() != 0 {
		t.Fatalf("OutOfScope %d, unmatched %v; want 1 and none", plan.OutOfScope, plan.Unmatched.List())
	}
}

func countKind(p *Plan, k Kind) int {
	n := 0
	for i := range p.Changes {
		if p.Changes[i].Kind == k {
			n++
		}
	}
	return n
}
