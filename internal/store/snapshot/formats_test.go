package snapshot

import (
	"os"
	"reflect"
	"testing"

	"github.com/orgsync/orgsync/internal/store/formattest"
)

// TestGoldenSnapshot: what today's code writes of a snapshot is the
// golden file of its format version.
func TestGoldenSnapshot(t *testing.T) {
	t.Parallel()
	formattest.Current(t, "org.snapshot", FormatVersion, encode(t, sample()))
}

// TestEveryGoldenSnapshotLoads: a snapshot written by every release so
// far, in every format version, is read back as it was written: an
// upgrade keeps planning incremental runs from it.
func TestEveryGoldenSnapshotLoads(t *testing.T) {
	t.Parallel()
	for _, path := range formattest.Versions(t, "org.snapshot", FormatVersion) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeBytes(b)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if want := sample(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", path, got, want)
		}
	}
}

// TestVersionDocumented: the manual's table of formats gives the
// snapshot's version.
func TestVersionDocumented(t *testing.T) {
	t.Parallel()
	formattest.VersionDocumented(t, "../../../docs/change-control.md", "`snapshots/org-NAME.snapshot`", FormatVersion)
}
