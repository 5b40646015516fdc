package reconcile

import (
	"strings"
	"testing"
)

func TestLimitMax(t *testing.T) {
	for _, tc := range []struct {
		l       Limit
		managed int
		want    int
	}{
		{Limit{}, 1000, -1},
		{Limit{Count: 50}, 1000, 50},
		{Limit{Percent: 10}, 1000, 100},
		{Limit{Count: 50, Percent: 10}, 1000, 50},
		{Limit{Count: 500, Percent: 10}, 1000, 100},
		{Limit{Percent: 10}, 5, 0},
	} {
		if got := tc.l.Max(tc.managed); got != tc.want {
			t.Errorf("%+v.Max(%d) = %d, want %d", tc.l, tc.managed, got, tc.want)
		}
	}
}

func TestPolicyValidate(t *testing.T) {
	for _, tc := range []struct {
		p    Policy
		want string
	}{
		{Policy{Managed: []string{"A"}, UserGroups: []string{"a"}}, ""},
		{Policy{Managed: []string{"A"}, UserGroups: []string{"B"}}, `userGroups: "B" is not a managed group`},
		{Policy{Managed: []string{"_admin_A"}, UserGroups: []string{"_admin_A"}}, "is an admin group"},
		{Policy{Unlisted: "purge"}, `unlisted: "purge" is not an unlisted-user policy`},
		{Policy{MaxRemovals: Limit{Percent: 150}}, "percent within 0..100"},
	} {
		err := tc.p.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Validate(%+v) = %v, want %q", tc.p, err, tc.want)
		}
	}
}

func TestReadScope(t *testing.T) {
	p := Policy{Managed: []string{"A", "B"}, ExcludeGroups: []string{"X"}, UserGroups: []string{"A"}, CreateUserGroups: true}
	s := p.ReadScope()
	if strings.Join(s.Groups, ",") != "A,B,X" || s.AllUsers || !s.CreateGroups || len(s.UserGroups) != 1 {
		t.Errorf("scope = %+v", s)
	}
	for _, u := range []Unlisted{RemoveUsers, DeleteUsers} {
		p.Unlisted = u
		if !p.ReadScope().AllUsers {
			t.Errorf("%s: a read by group would miss users to remove", u)
		}
	}
	if _, err := Diff(Desired{}, &Current{Scoped: true}, &p); err == nil {
		t.Error("Diff accepted a state read by group under a policy removing unlisted users")
	}
}
