package view

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/changecontrol/planfile"
	"github.com/orgsync/orgsync/reconcile"
)

// TestSavedPlanShowsEveryOrganization: the header, then each
// organization's plan under its name and id, naming its settings as its
// configuration did when the plan was saved.
func TestSavedPlanShowsEveryOrganization(t *testing.T) {
	t.Parallel()
	remove := reconcile.Change{Kind: reconcile.KindRemove, User: ent("a@example.com", "A")}
	f := &planfile.File{FormatVersion: planfile.FormatVersion, ToolVersion: "v9", Created: time.Now(), Config: "c0ffee", Sources: "5ca1ab1e",
		Flags: planfile.Flags{Orgs: "main,emea"}, Organizations: []planfile.Org{
			{Name: "main", OrgID: "1234ABCD@VendorOrg", Plan: &reconcile.Plan{Changes: []reconcile.Change{remove}}},
			{Name: "emea", OrgID: "5678EF01@VendorOrg", Plan: &reconcile.Plan{Unmatched: reconcile.UsersOf(ent("b@example.com", "B"))},
				Keys: map[reconcile.Setting]string{reconcile.SettingUnmatched: "targets[1].policy.unmatchedUsers"}},
		}}
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := f.Write(path); err != nil {
		t.Fatal(err)
	}
	back, err := planfile.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := SavedPlan(&b, back, FormatText, time.Now()); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	m, e := strings.Index(text, "== organization main (1234ABCD@VendorOrg)"), strings.Index(text, "== organization emea (5678EF01@VendorOrg)")
	if !strings.HasPrefix(text, "saved plan (format 1), made ") || !strings.Contains(text, "by orgsync v9\nconfiguration ") ||
		!strings.Contains(text, "made with --orgs main,emea (orgsync apply uses them too)") ||
		m < 0 || e < m || !strings.Contains(text[m:e], "- remove a@example.com") ||
		!strings.Contains(text[e:], "# 1 unmatched user (in the organization, in no source; targets[1].policy.unmatchedUsers says") {
		t.Errorf("saved plan as text:\n%s", text)
	}
	var j, file strings.Builder
	if err := SavedPlan(&j, back, FormatJSON, time.Now()); err != nil || back.Encode(&file) != nil || j.String() != file.String() {
		t.Errorf("saved plan as JSON is not the file's: %v\n%s", err, j.String())
	}
}
