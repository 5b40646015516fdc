package formattest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Section returns the section of the manual page at path (relative to
// the package's folder) under heading (its whole line, "### The JSON
// plan"), up to the next heading of its level or above.
func Section(t *testing.T, path, heading string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.FromSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	start := slices.Index(lines, heading)
	if start < 0 {
		t.Fatalf("%s has no section %q", path, heading)
	}
	level := strings.Index(heading, " ")
	end := len(lines)
	fenced := false // in a code block, where "# " is no heading
	for i := start + 1; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "```") {
			fenced = !fenced
		}
		if n := strings.Index(lines[i], " "); !fenced && n > 0 && n <= level && strings.Trim(lines[i][:n], "#") == "" {
			end = i
			break
		}
	}
	return strings.Join(lines[start:end], "\n")
}

// FieldsDocumented fails the test when the manual's docs do not give
// version v as formatVersion's, or do not name (as `key`) every field, at
// any depth, of the golden files of the formats names at version v: a
// field a pipeline can rely on is in the manual.
func FieldsDocumented(t *testing.T, docs string, v int, names ...string) {
	t.Helper()
	if want := fmt.Sprintf("| `formatVersion` | %d |", v); !strings.Contains(docs, want) {
		t.Errorf("the manual lacks the row %q", want)
	}
	for _, name := range names {
		b, err := os.ReadFile(Path(name, v))
		if err != nil {
			t.Fatal(err)
		}
		documented(t, b, docs)
	}
}

// documented fails the test when a key of the JSON document golden, at
// any depth, is not named in docs.
func documented(t *testing.T, golden []byte, docs string) {
	t.Helper()
	var v any
	if err := json.Unmarshal(golden, &v); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				keys[k] = true
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	for k := range keys {
		if !strings.Contains(docs, "`"+k+"`") {
			t.Errorf("the manual does not name the field %q", k)
		}
	}
}

// VersionDocumented fails the test when the manual's table of formats
// (docs/change-control.md, "Formats and their versions", at path) does
// not give version v on the row that names where (a file, a command).
func VersionDocumented(t *testing.T, path, where string, v int) {
	t.Helper()
	for _, line := range strings.Split(Section(t, path, "### Formats and their versions"), "\n") {
		if strings.HasPrefix(line, "|") && strings.Contains(line, where) {
			if !strings.HasSuffix(line, fmt.Sprintf("| %d |", v)) {
				t.Errorf("the manual's table of formats gives %q, want version %d", line, v)
			}
			return
		}
	}
	t.Errorf("the manual's table of formats has no row for %s", where)
}
