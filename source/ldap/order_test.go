package ldap

import (
	"slices"
	"testing"

	ldap3 "github.com/go-ldap/ldap/v3"
)

// TestTargetsComeSorted: a user in several groups, through every
// membership mode and nesting, gets the same sorted target groups however
// the directory orders the groups, and the same spelling of a name two
// groups map to in different letter case.
func TestTargetsComeSorted(t *testing.T) {
	t.Parallel()
	user := "uid=u1,ou=people,dc=example,dc=com"
	build := func(order []string) []string {
		all := map[string]*group{
			"cn=zeta":  {dn: "cn=zeta", targets: []string{"Zeta"}, members: []string{user}},
			"cn=alpha": {dn: "cn=alpha", targets: []string{"Alpha", "design"}, uids: []string{"u1"}},
			"cn=mid":   {dn: "cn=mid", targets: []string{"Mid", "Design"}, members: []string{"cn=zeta"}},
		}
		groups := map[string]*group{}
		for _, dn := range order { // the map's insertion order stands for the directory's
			groups[dn] = all[dn]
		}
		m := &memberships{byDN: map[string][]string{}, byUID: map[string][]string{}, byRID: map[uint32][]string{},
			byGroup: map[string][]string{}, mapGroup: func(string, string) []string { return nil }}
		effective := effectiveTargets(groups, true)
		for _, g := range sortedGroups(groups) {
			m.addGroup(g, effective[g.dn])
		}
		e := ldap3.NewEntry(user, map[string][]string{"uid": {"u1"}})
		return m.targets(e, &plan{uidAttr: "uid", modes: modes{member: true, memberUID: true}})
	}
	want := []string{"Alpha", "Design", "Mid", "Zeta"} // the direct membership's spelling
	for _, order := range [][]string{{"cn=zeta", "cn=alpha", "cn=mid"}, {"cn=mid", "cn=zeta", "cn=alpha"}, {"cn=alpha", "cn=mid", "cn=zeta"}} {
		for range 20 {
			if got := build(order); !slices.Equal(got, want) {
				t.Fatalf("order %v: targets %q, want %q", order, got, want)
			}
		}
	}
}
