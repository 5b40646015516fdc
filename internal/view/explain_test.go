package view

import (
	"strings"
	"testing"

	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source/diag"
)

// TestExplainOrg: what plan --explain says a plan does for the user in
// each organization of several: its changes, unmatched, nothing, an
// organization it has no group of (excluded, or not taken), one that could
// not be planned.
func TestExplainOrg(t *testing.T) {
	t.Parallel()
	dave := reconcile.User{Type: reconcile.EnterpriseID, Email: "dave@example.com"}
	tests := []struct {
		name string
		org  run.ExplainOrg
		want string
	}{
		{"a change", run.ExplainOrg{Org: "main", Changes: []reconcile.Change{{Kind: reconcile.KindCreate, User: dave}}},
			"  planned in main: + create dave@example.com"},
		{"unmatched", run.ExplainOrg{Org: "main", Unmatched: "policy.unmatchedUsers"},
			"  planned in main: unmatched: in the organization and in no source, so policy.unmatchedUsers applies\n  planned in main: no change\n"},
		{"unknown everywhere", run.ExplainOrg{Org: "main", Unknown: true},
			"  planned in main: no change: the organization's users read for this plan have no such user either; check the name\n"},
		{"no group of a mapped-only organization", run.ExplainOrg{Org: "emea", NoGroup: run.NoGroupAdded},
			"  in emea: no group of emea for this user (members: mapped): not added to it; a member already keeps the place, without the managed groups\n  planned in emea: no change\n"},
		{"no group, unmapped users excluded", run.ExplainOrg{Org: "emea", NoGroup: run.NoGroupOut},
			"  in emea: no group of emea for this user: out of scope there (excludeUnmappedUsers), left alone\n  planned in emea: no change\n"},
		{"organization failed", run.ExplainOrg{Org: "emea", Failed: true}, "  planned in emea: none (the organization could not be planned)\n"},
		{"one organization", run.ExplainOrg{}, "  planned: no change\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		explainOrg(&b, tt.org)
		if !strings.HasPrefix(b.String(), tt.want) {
			t.Errorf("%s: got %q, want it to start with %q", tt.name, b.String(), tt.want)
		}
	}
}

// TestExplain: a record with the rules that gave its groups, the user as
// the sources give it, and the run's scope; nil writes nothing.
func TestExplain(t *testing.T) {
	t.Parallel()
	x := &run.Explanation{Name: "dave@example.com",
		Records: []run.ExplainRecord{{Trace: diag.Trace{Source: "sources[0] (csv users.csv)", File: "users.csv", Line: 4,
			DirectoryGroups: []string{"eng", "sales"}, Set: map[string]string{"country": "FR"}, LeftOut: "scope"},
			Rules:       [][]run.ExplainRule{{{Index: 0, Directory: "eng", Targets: []string{"Engineering", "Acrobat Pro"}}}, nil},
			ScopeGroups: []string{"design"}}},
		Desired: []run.ExplainUser{{Key: "dave@example.com", Held: []string{"Design"}}}, NotListed: true}
	var b strings.Builder
	Explain(&b, x)
	want := "\nexplain dave@example.com:\n  sources[0] (csv users.csv), users.csv:4:\n" +
		"    directory group \"eng\": mapping[0] (directory \"eng\") gives Engineering, Acrobat Pro\n" +
		"    directory group \"sales\": no mapping rule\n    set.country gives \"FR\"\n" +
		"    left out: in none of the scope groups [\"design\"]\n" +
		"  desired: dave@example.com with groups (none)\n  held this run (a mapped group another source names is missing): Design\n" +
		"  out of scope: the users file does not list dave@example.com\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if Explain(&b, nil); b.Len() != 0 {
		t.Errorf("nil explanation wrote %q", b.String())
	}
}
