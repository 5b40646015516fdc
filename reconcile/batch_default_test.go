package reconcile

import (
	"fmt"
	"testing"
)

func TestBatchesDefaultLimits(t *testing.T) {
	t.Parallel()
	dense := &Plan{UserGroups: []string{"G1"}}
	for i := range 250 {
		dense.Changes = append(dense.Changes, Change{Kind: KindUpdate, User: User{Type: EnterpriseID, Email: fmt.Sprintf("u%d@x.com", i)}, Add: []string{"G1"}})
	}
	spill := &Plan{}
	for g := range 11 {
		spill.UserGroups = append(spill.UserGroups, fmt.Sprintf("G%02d", g))
	}
	for i := range 20 {
		spill.Changes = append(spill.Changes, Change{Kind: KindCreate, User: User{Type: EnterpriseID, Email: fmt.Sprintf("n%d@x.com", i)}, Add: spill.UserGroups})
	}
	profiles := &Plan{UserGroups: []string{"G1"}}
	for i := range 30 {
		profiles.Changes = append(profiles.Changes,
			Change{Kind: KindUpdate, User: User{Type: EnterpriseID, Email: fmt.Sprintf("p%d@x.com", i)}, Add: []string{"Profile"}},
			Change{Kind: KindUpdate, User: User{Type: FederatedID, Username: fmt.Sprintf("f%d", i), Domain: "x.com"}, Add: []string{"G1"}})
	}
	// Every new user joins a group the plan creates; two of them need a
	// second entry. Request 1 holds the createUserGroup entry and the two
	// that need a second entry, and has room for 7 more new users: it takes
	// 7, whose membership of the new group goes group-rooted later (one more
	// entry), so 36 entries fit in 4 requests instead of 35 in 5.
	created := &Plan{UserGroups: []string{"New", "UG"}}
	created.Changes = append(created.Changes, Change{Kind: KindCreateGroup, Group: "New"},
		Change{Kind: KindUpdate, User: User{Type: EnterpriseID, Email: "old@x.com"}, Add: []string{"New"}})
	var profiles12 []string
	for i := range 12 {
		profiles12 = append(profiles12, fmt.Sprintf("P%d", i))
	}
	for _, typ := range []IdentityType{VendorID, FederatedID} {
		u := User{Type: typ, Email: fmt.Sprintf("%s@x.com", typ), FirstName: "F", LastName: "L", Country: "US"}
		created.Changes = append(created.Changes, Change{Kind: KindCreate, User: u, Add: profiles12})
	}
	for i := range 30 {
		u := User{Type: EnterpriseID, Email: fmt.Sprintf("e%d@x.com", i), FirstName: "F", LastName: "L"}
		created.Changes = append(created.Changes, Change{Kind: KindCreate, User: u, Add: []string{"New", "UG"}})
	}
	for _, tc := range []struct {
		name    string
		plan    *Plan
		want    int
		entries int
	}{
		{"32 new users, all in a created group: the first request filled", created, 4, 36},
		{"250 joins of one user group: 3 group-rooted entries", dense, 1, 3},
		{"20 new users in 11 groups: 10 in the create entry, the 11th group-rooted later", spill, 3, 21},
		{"profiles and username-only Federated IDs stay user-rooted", profiles, 6, 60},
	} {
		reqs := tc.plan.Batches(DefaultLimits())
		entries := 0
		for _, r := range reqs {
			entries += len(r.Entries)
		}
		if len(reqs) != tc.want || entries != tc.entries {
			t.Errorf("%s: %d requests, %d entries; want %d, %d", tc.name, len(reqs), entries, tc.want, tc.entries)
		}
		if err := newModel(tc.plan, DefaultLimits()).validate(reqs); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
