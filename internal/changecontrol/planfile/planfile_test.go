package planfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/reconcile"
)

func change(kind reconcile.Kind, email string, remove ...string) reconcile.Change {
	return reconcile.Change{Kind: kind, User: reconcile.User{Type: reconcile.FederatedID, Email: email}, Remove: remove}
}

func TestWriteReadRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "plan.json")
	f := &File{FormatVersion: FormatVersion, ToolVersion: "v1", Created: time.Now().UTC().Truncate(time.Second), Config: "abc",
		Organizations: []Org{{Name: "default", Plan: &reconcile.Plan{Changes: []reconcile.Change{change(reconcile.KindRemove, "a@example.com")}}}}}
	if err := f.Write(path); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	o, ok := got.Org("default")
	if !ok || len(o.Plan.Changes) != 1 || !got.Created.Equal(f.Created) || len(Diff(f.Organizations[0].Plan, o.Plan, nil)) != 0 {
		t.Errorf("read back %+v", got)
	}
	if _, ok := got.Org("emea"); ok {
		t.Error("found an organization the file does not have")
	}
}

func TestReadRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"other version": `{"formatVersion": 9}`,
		"not json":      `+ create a@example.com`,
	} {
		path := filepath.Join(dir, "p.json")
		_ = os.WriteFile(path, []byte(content), 0o600)
		if _, err := Read(path); err == nil || !strings.Contains(err.Error(), "p.json") {
			t.Errorf("%s: %v, want an error naming the file", name, err)
		}
	}
}

func TestDiff(t *testing.T) {
	t.Parallel()
	saved := &reconcile.Plan{Changes: []reconcile.Change{change(reconcile.KindRemove, "a@example.com"), change(reconcile.KindUpdate, "b@example.com", "Design")}}
	fresh := &reconcile.Plan{Changes: []reconcile.Change{change(reconcile.KindRemove, "a@example.com")},
		Withheld: []reconcile.Change{change(reconcile.KindUpdate, "b@example.com", "Design")}}
	got := strings.Join(Diff(saved, fresh, nil), "\n")
	want := "only in the saved plan: ~ update b@example.com (federatedID) groups: -Design\n" +
		"only in a fresh plan:  withheld ~ update b@example.com (federatedID) groups: -Design"
	if got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
	if d := Diff(saved, saved, nil); len(d) != 0 {
		t.Errorf("a plan differs from itself: %v", d)
	}
	at := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	applied := func(key string) (time.Time, bool) { return at, key == "a@example.com" }
	got = strings.Join(Diff(saved, &reconcile.Plan{}, applied), "\n")
	want = "already applied (2026-11-26T10:00:00Z): - remove a@example.com (federatedID)\n" +
		"only in the saved plan: ~ update b@example.com (federatedID) groups: -Design"
	if got != want {
		t.Errorf("diff after a's removal was applied:\n%s\nwant:\n%s", got, want)
	}
}

func TestUsersFingerprintIgnoresOrder(t *testing.T) {
	t.Parallel()
	a := []reconcile.User{{Email: "a@example.com"}, {Email: "b@example.com", Groups: []string{"X"}}}
	b := []reconcile.User{a[1], a[0]}
	ua := reconcile.UsersOf(a...)
	if UsersFingerprint(ua) != UsersFingerprint(reconcile.UsersOf(b...)) {
		t.Error("the order of the users changes the fingerprint")
	}
	b[0].Groups = []string{"Y"}
	if UsersFingerprint(ua) == UsersFingerprint(reconcile.UsersOf(b...)) {
		t.Error("a changed group keeps the fingerprint")
	}
	if ua.At(0).Email != "a@example.com" {
		t.Error("UsersFingerprint reordered its argument")
	}
}

// TestUsersFingerprintAsBefore: the fingerprint is the one the release
// before the compact users wrote into saved plans (the Fingerprint of the
// users sorted by key), so that a plan saved by it is not taken for stale.
func TestUsersFingerprintAsBefore(t *testing.T) {
	t.Parallel()
	sorted := []reconcile.User{
		{Type: reconcile.EnterpriseID, Email: "a<b>&c@example.com", FirstName: "Ä", Groups: []string{"G & <H>"}},
		{Type: reconcile.FederatedID, Email: "z@example.com", Username: "zed", Domain: "example.com"},
	}
	if got, want := UsersFingerprint(reconcile.UsersOf(sorted[1], sorted[0])), Fingerprint(sorted); got != want {
		t.Errorf("fingerprint %s, want %s", got, want)
	}
	var none []reconcile.User
	if got, want := UsersFingerprint(reconcile.Users{}), Fingerprint(none); got != want {
		t.Errorf("fingerprint of no user %s, want %s", got, want)
	}
}

// OrgNames lists the organizations in the file's order; Read gives each
// plan the keys its configuration names its settings by.
func TestOrgNamesAndKeys(t *testing.T) {
	t.Parallel()
	f := &File{FormatVersion: FormatVersion, Created: time.Now(), Organizations: []Org{
		{Name: "main", Plan: &reconcile.Plan{}},
		{Name: "emea", Plan: &reconcile.Plan{}, Keys: map[reconcile.Setting]string{reconcile.SettingUnmatched: "targets[1].policy.unmatchedUsers"}},
	}}
	if got := strings.Join(f.OrgNames(), ","); got != "main,emea" {
		t.Errorf("OrgNames = %s", got)
	}
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := f.Write(path); err != nil {
		t.Fatal(err)
	}
	back, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Organizations[1].Plan.Names.Of(reconcile.SettingUnmatched); got != "targets[1].policy.unmatchedUsers" {
		t.Errorf("emea's plan read back names unmatched %q", got)
	}
	if got := back.Organizations[0].Plan.Names.Of(reconcile.SettingUnmatched); got != "unmatched" {
		t.Errorf("main's plan, saved without keys, names unmatched %q", got)
	}
}
