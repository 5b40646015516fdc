// Package formattest is what the tests of orgsync's formats (the state
// directory's files, the saved plan, the JSON plan, /api/runs) share: a
// plan with one of everything a plan holds, so that a golden file of a
// format that holds plans or changes shows all of it, and the golden
// files themselves, one for each format version. Tests only.
package formattest

import "github.com/orgsync/orgsync/reconcile"

func str(s string) *string { return &s }

// Changes returns a change of every kind the plan lists among its
// changes (not KindInviteGroups: Plan's InviteGroups hold those), each
// with every field its kind uses.
func Changes() []reconcile.Change {
	return []reconcile.Change{
		{Kind: reconcile.KindCreateGroup, Group: "Design Team"},
		{Kind: reconcile.KindCreate, User: reconcile.User{Type: reconcile.EnterpriseID, Email: "ann@example.com", Username: "ann@example.com",
			Domain: "example.com", FirstName: "Ann", LastName: "Lee", Country: "US", Groups: []string{"Design Team", "Dev"}}, Add: []string{"Design Team", "Dev"}},
		{Kind: reconcile.KindUpdate, User: reconcile.User{Type: reconcile.FederatedID, Email: "bo@fed.example.net", Username: "bo", Domain: "fed.example.net"},
			Set: &reconcile.Attrs{FirstName: str("Bö"), LastName: str("Ng"), Email: str("bo.ng@fed.example.net"), Username: str("bo.ng")},
			Add: []string{"Dev"}, Remove: []string{"Design Team", "_org_admin_viewer"}},
		{Kind: reconcile.KindResendInvite, User: reconcile.User{Type: reconcile.VendorID, Email: "cy@gmail.example"}, Add: []string{"Dev"}},
		{Kind: reconcile.KindRemove, User: reconcile.User{Type: reconcile.EnterpriseID, Email: "dee@example.com"}},
		{Kind: reconcile.KindDelete, User: reconcile.User{Type: reconcile.FederatedID, Username: "ed", Domain: "fed.example.net"}},
		{Kind: reconcile.KindRevokeInvite, User: reconcile.User{Type: reconcile.VendorID, Email: "fay@gmail.example"}},
	}
}

// Plan returns a plan with every field set: Changes' changes, a
// withheld removal with the limit that withheld it, unmatched users,
// counts, notes, user groups, a pending invite's groups and a missing
// group.
func Plan() *reconcile.Plan {
	return &reconcile.Plan{
		Changes: Changes(),
		Withheld: []reconcile.Change{{Kind: reconcile.KindRemove, User: reconcile.User{Type: reconcile.EnterpriseID, Email: "gus@example.com"}},
			{Kind: reconcile.KindUpdate, User: reconcile.User{Type: reconcile.EnterpriseID, Email: "hal@example.com"}, Remove: []string{"Dev"}}},
		Safety: &reconcile.SafetyError{Reason: "4 removals exceed maxRemovals 2", Withheld: 2, Removals: 4, Changes: 9, Managed: 40,
			Limit: 2, LimitName: reconcile.SettingMaxRemovals},
		Unmatched: reconcile.UsersOf(reconcile.User{Type: reconcile.EnterpriseID, Email: "dee@example.com", FirstName: "Dee", LastName: "Ray", Country: "FR", Groups: []string{"Design Team"}},
			reconcile.User{Type: reconcile.FederatedID, Username: "ed", Domain: "fed.example.net"}),
		Excluded:   3,
		OutOfScope: 5,
		Notes:      []string{`desired user ann@example.com is listed twice (record 7); the first record is used`},
		UserGroups: []string{"Design Team"},
		InviteGroups: []reconcile.Change{{Kind: reconcile.KindInviteGroups, User: reconcile.User{Type: reconcile.VendorID, Email: "ivy@gmail.example"},
			Add: []string{"Dev"}}},
		MissingGroups: []reconcile.MissingGroup{{Name: "Marketing", Users: 2}},
	}
}
