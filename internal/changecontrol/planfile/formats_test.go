package planfile

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/store/formattest"
	"github.com/orgsync/orgsync/reconcile"
)

// sampleFile is a saved plan with every field set: two organizations,
// one of them with a plan holding one of everything.
func sampleFile() *File {
	return &File{FormatVersion: FormatVersion, ToolVersion: "v1.4.0", Created: time.Date(2026, 11, 26, 10, 15, 0, 0, time.UTC),
		ConfigFile: "/etc/orgsync/orgsync.yaml", Config: "6f1ed002ab5595859014ebf0951522d9", Sources: "3e25960a79dbc69b674cd4ec67a72c62",
		Flags: Flags{Orgs: "emea,amer", MaxRemovals: "10%", ScopeGroups: "Dev", UsersFile: "/tmp/users.csv", ExcludeUnmappedUsers: true},
		Organizations: []Org{
			{Name: "emea", OrgID: "1234ABCD@AdobeOrg", Current: "a87ff679a2f3e71d9181a67b7542122c", Plan: formattest.Plan(),
				Keys: map[reconcile.Setting]string{reconcile.SettingMaxRemovals: "targets[0].policy.maxRemovals"}},
			{Name: "amer", OrgID: "5678EFAB@AdobeOrg", Current: "e4da3b7fbbce2345d7772b0674a318d5", Plan: &reconcile.Plan{}},
		}}
}

// TestGoldenSavedPlan: what today's code writes of a saved plan is the
// golden file of its current version.
func TestGoldenSavedPlan(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := sampleFile().Encode(&b); err != nil {
		t.Fatal(err)
	}
	formattest.Current(t, "saved-plan.json", FormatVersion, b.Bytes())
}

// TestUsersFingerprintIsStable: the fingerprint of the sources' users a
// saved plan keeps is what the release that saved it computed, so that
// the next release does not take unchanged sources for changed ones.
func TestUsersFingerprintIsStable(t *testing.T) {
	t.Parallel()
	p := formattest.Plan()
	users := reconcile.UsersOf(append(p.Unmatched.List(), p.Changes[1].User, p.Changes[2].User)...)
	if got, want := UsersFingerprint(users), "d12070e53d2cbbb57ea151bb53cdae70032dce5e96b305ce8e1f59f39b456e05"; got != want {
		t.Errorf("UsersFingerprint = %s, want %s (as earlier releases computed it)", got, want)
	}
}

// TestEveryGoldenSavedPlanLoads: a saved plan written by every release
// so far, in every format version, reads back as it was written, its
// settings named as its configuration names them.
func TestEveryGoldenSavedPlanLoads(t *testing.T) {
	t.Parallel()
	for _, path := range formattest.Versions(t, "saved-plan.json", FormatVersion) {
		got, err := Read(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		emea, _ := got.Org("emea")
		if name := emea.Plan.Names.Of(reconcile.SettingMaxRemovals); name != "targets[0].policy.maxRemovals" {
			t.Errorf("%s: maxRemovals named %q", path, name)
		}
		for _, o := range got.Organizations {
			o.Plan.Names = nil
		}
		if want := sampleFile(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", path, got, want)
		}
	}
}

// TestSavedPlanHoldsNoCoreType: the saved plan's format holds no type of
// the core's (its plans go through planjson).
func TestSavedPlanHoldsNoCoreType(t *testing.T) {
	t.Parallel()
	formattest.NoCoreTypes(t, File{})
	formattest.NoCoreTypes(t, orgJSON{})
}

// TestVersionDocumented: the manual's table of formats gives the saved
// plan's version.
func TestVersionDocumented(t *testing.T) {
	t.Parallel()
	formattest.VersionDocumented(t, "../../../docs/change-control.md", "`plan --out FILE`", FormatVersion)
}
