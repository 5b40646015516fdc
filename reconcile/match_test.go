package reconcile

import (
	"regexp"
	"testing"
)

func TestWantedMatchesLikeDiff(t *testing.T) {
	t.Parallel()
	desired := []User{
		{Type: EnterpriseID, Email: "Ann@Example.com"},
		{Type: FederatedID, Email: "bob@fed.net"},                                        // named by email alone
		{Type: FederatedID, Email: "cy@fed.net", Username: "cy", Domain: "fed.net"},      // named by username
		{Type: EnterpriseID, Email: "ann@example.com", FirstName: "Second record"},       // duplicate key
		{Type: FederatedID, Email: "dee@fed.net", Username: "deedee", Domain: "fed.net"}, // username changed
	}
	users := UsersOf(desired...)
	w := NewWanted(&users)
	if w.Len() != 4 {
		t.Errorf("Len = %d, want 4 distinct users", w.Len())
	}
	var distinct []int
	w.Distinct(func(i int) { distinct = append(distinct, i) })
	if len(distinct) != 4 || distinct[3] != 4 {
		t.Errorf("Distinct gave %v, want [0 1 2 4]", distinct)
	}
	for _, tc := range []struct {
		cur  User
		want int // -1: no match
	}{
		{User{Type: EnterpriseID, Email: "ANN@example.COM"}, 0},
		{User{Type: FederatedID, Email: "bob@fed.net", Username: "bobby", Domain: "fed.net"}, 1},
		{User{Type: FederatedID, Email: "other@fed.net", Username: "CY", Domain: "FED.net"}, 2},
		{User{Type: FederatedID, Email: "dee@fed.net", Username: "dee2", Domain: "fed.net"}, 4}, // the email is the account
		{User{Type: FederatedID, Email: "DEE@fed.net"}, 4},
		{User{Type: EnterpriseID, Email: "dee@fed.net"}, -1}, // another type is another account
		{User{Type: EnterpriseID, Email: "nobody@example.com"}, -1},
	} {
		i, ok := w.Match(&tc.cur)
		if got := map[bool]int{true: i, false: -1}[ok]; got != tc.want {
			t.Errorf("Match(%s) = %d, want %d", tc.cur.Key(), got, tc.want)
		}
	}
}

func TestReadNeedsFor(t *testing.T) {
	t.Parallel()
	p := &Policy{Managed: []string{"G"}, ExcludeGroups: []string{"X"}, RevokeUnmatchedInvites: true}
	users := UsersOf(User{Type: VendorID, Email: "a@b.c"})
	s := p.ReadNeedsFor(&users)
	if !s.DesiredKnown || s.Desired.Len() != 1 || !s.RevokeInvites || s.AllUsers || len(s.Groups) != 1 {
		t.Errorf("ReadNeedsFor = %+v", s)
	}
	p.ExcludeTypes = []IdentityType{FederatedID}
	p.ExcludeUsernames = []*regexp.Regexp{regexp.MustCompile(`^svc-`)}
	users.Add(User{Type: FederatedID, Email: "f@b.c"})
	users.Add(User{Type: EnterpriseID, Email: "svc-x@b.c"})
	users.Add(User{Type: EnterpriseID, Email: "e@b.c"})
	if s := p.ReadNeedsFor(&users); s.Desired.Len() != 2 || s.Desired.At(1).Email != "e@b.c" || users.Len() != 4 {
		t.Errorf("ReadNeedsFor kept %v (of %d); want the users not excluded by type or username, the desired users unchanged", s.Desired.List(), users.Len())
	}
	if s := p.ReadNeeds(); s.DesiredKnown || s.Desired.Len() != 0 || len(s.Groups) != 2 {
		t.Errorf("ReadNeeds = %+v: the desired users are unknown", s)
	}
}
