package view

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/reconcile"
)

func ent(email, first string, groups ...string) reconcile.User {
	return reconcile.User{Type: reconcile.EnterpriseID, Email: email, FirstName: first, LastName: "L", Country: "US", Groups: groups}
}

// diff plans desired against current under pol.
func diff(t *testing.T, pol *reconcile.Policy, desired []reconcile.User, current ...reconcile.User) *reconcile.Plan {
	t.Helper()
	v, err := pol.Valid()
	if err != nil {
		t.Fatal(err)
	}
	p, err := reconcile.Diff(reconcile.Desired{Complete: true, Users: reconcile.UsersOf(desired...)}, &reconcile.Current{Users: reconcile.UsersOf(current...)}, v)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// keysOf names the settings as the configuration of targets[1] with its
// own policy does.
func keysOf(s reconcile.Setting) string { return "targets[1].policy." + string(s) }

func TestPlanText(t *testing.T) {
	t.Parallel()
	pol := &reconcile.Policy{Managed: []string{"Design", "Dev"}, Update: reconcile.Attributes{FirstName: true}, Unmatched: reconcile.RemoveUsers}
	p := diff(t, pol, []reconcile.User{ent("new@x.com", "N", "Dev"), ent("bob@x.com", "Rob", "Dev")},
		ent("bob@x.com", "Bob", "Design"), ent("gone@x.com", "G"))
	var b bytes.Buffer
	if err := Plan(&b, p); err != nil {
		t.Fatal(err)
	}
	want := `+ create new@x.com (enterpriseID) firstname="N" lastname="L" country="US" groups: +Dev
~ update bob@x.com (enterpriseID) firstname="Rob" groups: +Dev -Design
- remove gone@x.com (enterpriseID)
# 1 unmatched user (in the organization, in no source; unmatched says what happens to them):
#   gone@x.com (enterpriseID)
Plan: 1 to create, 1 to update, 1 to remove, 0 to delete, +2/-1 memberships, 0 groups to create, 0 invites to resend, 0 to revoke; 0 withheld, 1 unmatched, 0 excluded
`
	if b.String() != want {
		t.Errorf("Plan =\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := PlanJSON(&b, p, nil); err != nil {
		t.Fatal(err)
	}
	var got struct {
		FormatVersion int
		Counts        reconcile.Counts
		Changes       []reconcile.Change
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.FormatVersion != PlanFormatVersion || got.Counts.Of(reconcile.KindCreate) != 1 || got.Counts.Of(reconcile.KindRemove) != 1 || got.Counts.AddMemberships != 2 || len(got.Changes) != 3 {
		t.Errorf("JSON plan = %+v", got)
	}
}

// The text plan lists the unmatched users up to MaxUnmatchedShown, counts
// the rest with where to find them, and gives the excluded count; the
// settings it names are the organization's own (Plan.Names), here those
// of targets[1]'s policy, and so are the safety limit's and a missing
// group's.
func TestPlanListsUnmatchedAndExcludedNamingTheOrganizationsSettings(t *testing.T) {
	t.Parallel()
	pol := &reconcile.Policy{Managed: []string{"Design", "Dev", "Gone"}, ExcludeGroups: []string{"Admins"}, Unmatched: reconcile.RemoveGroups,
		MaxRemovals: reconcile.Limit{Count: 1}, Names: keysOf}
	current := []reconcile.User{ent("admin@x.com", "A", "Admins"), ent("keep@x.com", "K")}
	for i := range MaxUnmatchedShown + 5 {
		current = append(current, ent(fmt.Sprintf("old%02d@x.com", i), "O", "Design"))
	}
	v, err := pol.Valid()
	if err != nil {
		t.Fatal(err)
	}
	p, err := reconcile.Diff(reconcile.Desired{Complete: true, Users: reconcile.UsersOf(ent("keep@x.com", "K", "Gone"))},
		&reconcile.Current{Users: reconcile.UsersOf(current...), Missing: []string{"Gone"}}, v)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Plan(&b, p); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"# 25 unmatched users (in the organization, in no source; targets[1].policy.unmatched says what happens to them):\n",
		"#   old00@x.com (enterpriseID)\n",
		"#   old19@x.com (enterpriseID)\n#   ... and 5 more (see --output json or targets[1].policy.reportFile)\n",
		"# 1 excluded user (left alone by targets[1].policy.exclude)\n",
		"! safety: 25 removals exceed targets[1].policy.maxRemovals 1: ",
		`! target group "Gone" does not exist in the organization (1 source user would be added to it; none is): create it in the organization (a product profile or a user group), set targets[1].policy.createUserGroups: true`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the plan lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "#   old20@x.com") || strings.Contains(out, "admin@x.com") {
		t.Errorf("the plan lists more than %d unmatched users, or the excluded one:\n%s", MaxUnmatchedShown, out)
	}
}

// A plan holding a change of a kind this version does not know is not
// shown, as text or JSON, alone or among others.
func TestPlanOfAnUnknownKindIsNotShown(t *testing.T) {
	t.Parallel()
	p := &reconcile.Plan{Changes: []reconcile.Change{{Kind: "rename", User: ent("a@x.com", "A")}}}
	if err := Plan(&bytes.Buffer{}, p); !errors.Is(err, reconcile.ErrUnknownKind) {
		t.Errorf("Plan: %v; want ErrUnknownKind", err)
	}
	if err := PlanJSON(&bytes.Buffer{}, p, nil); !errors.Is(err, reconcile.ErrUnknownKind) {
		t.Errorf("PlanJSON: %v; want ErrUnknownKind", err)
	}
}

// TestThePlanLineCountsEveryKind: the Plan: line shows a change of every
// kind of the reconciler's table; a kind added there without a place on
// the line fails here.
func TestThePlanLineCountsEveryKind(t *testing.T) {
	t.Parallel()
	none := countsLine((&reconcile.Plan{}).Counts())
	for _, k := range reconcile.Kinds() {
		p := &reconcile.Plan{Changes: []reconcile.Change{{Kind: k}}}
		if k == reconcile.KindInviteGroups {
			p = &reconcile.Plan{InviteGroups: []reconcile.Change{{Kind: k}}}
		}
		if got := countsLine(p.Counts()); got == none {
			t.Errorf("a %s change leaves the Plan: line as it is without one: %s", k, got)
		}
	}
}
