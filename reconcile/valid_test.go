package reconcile

import "testing"

// validPolicy is p made a ValidPolicy; the test stops when it is not valid.
func validPolicy(tb testing.TB, p *Policy) *ValidPolicy {
	tb.Helper()
	v, err := p.Valid()
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// TestValidPolicyIsCheckedOnceAndKeptApart: Valid refuses what Validate
// refuses; a ValidPolicy keeps its own copy (changing the policy it was
// made from, or what Policy returns, does not change it); a limit set
// afterwards is checked as Validate checks it; managing more groups gives
// a new ValidPolicy and leaves the first alone.
func TestValidPolicyIsCheckedOnceAndKeptApart(t *testing.T) {
	t.Parallel()
	if _, err := (&Policy{UserGroups: []string{"_org_admin"}}).Valid(); err == nil {
		t.Error("Valid accepted an admin group among the user groups")
	}
	p := &Policy{Managed: []string{"A"}, UserGroups: []string{"A"}}
	v := validPolicy(t, p)
	p.Managed[0], p.UserGroups = "Changed", append(p.UserGroups, "_org_admin")
	got := v.Policy()
	got.Managed[0] = "Also changed"
	if again := v.Policy(); again.Managed[0] != "A" || len(again.UserGroups) != 1 {
		t.Errorf("the valid policy changed with its source or its copy: %+v", again)
	}
	if _, err := v.WithMaxRemovals(Limit{Percent: 150}, "the flag"); err == nil {
		t.Error("WithMaxRemovals accepted 150%")
	}
	w, err := v.WithMaxRemovals(Limit{Count: 3}, "the flag")
	if err != nil || w.Policy().MaxRemovals.Count != 3 || v.Policy().MaxRemovals.Count != 0 {
		t.Errorf("WithMaxRemovals: %v, %+v", err, w.Policy().MaxRemovals)
	}
	if n := w.Policy().Names; n.Of(SettingMaxRemovals) != "the flag" || n.Of(SettingMaxChanges) != "maxChanges" {
		t.Errorf("WithMaxRemovals names the limit on removals %q and the other %q; want the flag, and the other as before",
			n.Of(SettingMaxRemovals), n.Of(SettingMaxChanges))
	}
	users := UsersOf(User{Email: "a@x.com", Groups: []string{"B", "a"}})
	m := v.ManagingGroupsOf(&users)
	if got := m.Policy().Managed; len(got) != 2 || got[1] != "B" || len(v.Policy().Managed) != 1 {
		t.Errorf("ManagingGroupsOf: %v (the first: %v)", got, v.Policy().Managed)
	}
}
