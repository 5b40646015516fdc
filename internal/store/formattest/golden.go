package formattest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// update rewrites the golden files of the formats' current versions
// instead of comparing with them: go test ./PKG -run Golden -update-formats.
// The goldens of earlier versions are never rewritten. (Not
// -update-golden: cmd/orgsync's tests have that flag for their plans.)
var update = flag.Bool("update-formats", false, "rewrite the golden files of the formats' current versions")

// Dir is where a package keeps its formats' golden files.
const Dir = "testdata/formats"

// Path is the golden file of version v of format name (a file name, its
// extension included: "approval.json" -> testdata/formats/approval-v1.json).
func Path(name string, v int) string {
	ext := filepath.Ext(name)
	return filepath.Join(Dir, name[:len(name)-len(ext)]+"-v"+strconv.Itoa(v)+ext)
}

// Current compares got, what today's code writes of format name at its
// version v, with its golden file (or writes the file with
// -update-formats): a change to what is written fails here until the
// golden is made again, under a new version when readers of the old one
// could misread it (see docs: each format's version rule).
func Current(t *testing.T, name string, v int, got []byte) {
	t.Helper()
	path := Path(name, v)
	if *update {
		if err := os.MkdirAll(Dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: write it with go test -run %s -update-formats", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("today's %s is not its golden file %s (format %d): a new field is fine (go test -run %s -update-formats); "+
			"a field changed or removed needs a new format version, and readers of this one kept\n got: %s\nwant: %s",
			name, path, v, t.Name(), got, want)
	}
}

// Versions returns the golden files of format name, every version's,
// earliest first; it fails the test when there is none, or when the
// latest is not version current.
func Versions(t *testing.T, name string, current int) []string {
	t.Helper()
	ext := filepath.Ext(name)
	base := name[:len(name)-len(ext)]
	paths, err := filepath.Glob(filepath.Join(Dir, base+"-v*"+ext))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`-v(\d+)` + regexp.QuoteMeta(ext) + `$`)
	version := func(p string) int {
		n, _ := strconv.Atoi(re.FindStringSubmatch(p)[1])
		return n
	}
	paths = slices.DeleteFunc(paths, func(p string) bool { return !re.MatchString(filepath.Base(p)) })
	slices.SortFunc(paths, func(a, b string) int { return version(a) - version(b) })
	if len(paths) == 0 || version(paths[len(paths)-1]) != current {
		t.Fatalf("the golden files of %s are %v: want one of each version up to %d (go test -run %s -update-formats)", name, paths, current, t.Name())
	}
	return paths
}
