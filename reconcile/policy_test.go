package reconcile

import (
	"slices"
	"strings"
	"testing"
)

func TestLimitMax(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	for _, tc := range []struct {
		p    Policy
		want string
	}{
		{Policy{Managed: []string{"A"}, UserGroups: []string{"a"}}, ""},
		{Policy{Managed: []string{"A"}, UserGroups: []string{"B"}}, ""},
		{Policy{Managed: []string{"_admin_A"}, UserGroups: []string{"_admin_A"}}, "is an admin group"},
		{Policy{Unmatched: "purge"}, `unmatched: "purge" is not an unmatched-user policy`},
		{Policy{MaxRemovals: Limit{Percent: 150}}, "percent within 0..100"},
	} {
		err := tc.p.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Validate(%+v) = %v, want %q", tc.p, err, tc.want)
		}
	}
}

func TestReadNeeds(t *testing.T) {
	t.Parallel()
	p := Policy{Managed: []string{"A", "B"}, ExcludeGroups: []string{"X"}, UserGroups: []string{"A"}, CreateUserGroups: true}
	s := p.ReadNeeds()
	if strings.Join(s.Groups, ",") != "A,B,X" || s.AllUsers || strings.Join(s.CheckGroups, ",") != "A,B" {
		t.Errorf("scope = %+v", s)
	}
	for _, u := range []Unmatched{RemoveUsers, DeleteUsers} {
		p.Unmatched = u
		if !p.ReadNeeds().AllUsers {
			t.Errorf("%s: a read by group would miss users to remove", u)
		}
	}
	if _, err := Diff(Desired{}, &Current{ByGroup: true}, validPolicy(t, &p)); err == nil {
		t.Error("Diff accepted a state read by group under a policy removing unmatched users")
	}
}

func TestManageGroupsOf(t *testing.T) {
	t.Parallel()
	p := Policy{Managed: []string{"Eng"}, UserGroups: []string{"Writers"}}
	users := UsersOf(User{Groups: []string{"eng", "Design Users"}}, User{Groups: []string{"design users", "PP Pro"}})
	p.manageGroupsOf(&users)
	if want := []string{"Eng", "Design Users", "PP Pro"}; !slices.Equal(p.Managed, want) {
		t.Errorf("Managed = %q, want %q", p.Managed, want)
	}
	if got, want := p.managedGroups(), []string{"Eng", "Design Users", "PP Pro", "Writers"}; !slices.Equal(got, want) {
		t.Errorf("managedGroups() = %q, want %q", got, want)
	}
}

// A user group named only in UserGroups is managed: its memberships are
// added and removed like those of a mapping target.
func TestDiffManagesDeclaredUserGroups(t *testing.T) {
	t.Parallel()
	pol := &Policy{UserGroups: []string{"Writers"}}
	cur := &Current{Users: UsersOf([]User{
		{Type: EnterpriseID, Email: "a@x.com", FirstName: "A", LastName: "A", Groups: []string{"Writers", "Other"}},
		{Type: EnterpriseID, Email: "b@x.com", FirstName: "B", LastName: "B"},
	}...)}
	desired := Desired{Complete: true, Users: UsersOf([]User{
		{Type: EnterpriseID, Email: "a@x.com", FirstName: "A", LastName: "A"},
		{Type: EnterpriseID, Email: "b@x.com", FirstName: "B", LastName: "B", Groups: []string{"writers"}},
	}...)}
	plan, err := Diff(desired, cur, validPolicy(t, pol))
	if err != nil {
		t.Fatal(err)
	}
	if c := plan.Counts(); c.AddMemberships != 1 || c.RemoveMemberships != 1 {
		t.Errorf("counts = %+v, want one add (b to Writers) and one remove (a from Writers), Other untouched", c)
	}
}
