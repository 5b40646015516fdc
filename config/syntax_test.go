package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/internal/util/yamlsyntax"
)

// The YAML mistakes people make are reported on the line where they are,
// with the line shown and what is likely wrong, not the parser's message
// about the start of the block (which is often lines earlier).
func TestSyntaxMistakesOnTheirLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, doc string
		line      int
		want      string
	}{
		{"key indented too far", "target:\n  orgId: 12AB@VendorOrg\n  baseURL: http://x\n   auth:\n    clientId: z\n", 4, "indented more (3 spaces)"},
		{"key indented too little", "target:\n  orgId: 12AB@VendorOrg\n  baseURL: http://x\n auth:\n    clientId: z\n", 4, "lines up with no key"},
		{"tab", "target:\n  orgId: 12AB@VendorOrg\n\tbaseURL: http://x\n", 3, "a tab in the indentation"},
		{"item without dash", "mapping:\n  - directory: eng\n    targets: [x]\n  directory: design\n    targets: [y]\n", 4, "a list item without '-'"},
		{"deep block, error far below its start", "sources:\n  - csv:\n      path: users.csv\n      defaultType: federatedID\n" +
			"# a comment\nmapping:\n  - directory: eng\n    targets:\n      - Engineering\n      - Acrobat Pro\n  - directory: design\n" +
			"    targets: [Design]\n  - directory: marketing\n    targets: |\n      text: kept\n   # stray comment\n     targets2: [x]\n", 17, "indented"},
	} {
		_, err := Parse([]byte(c.doc), filepath.Join(t.TempDir(), "c.yaml"))
		var cerr *Error
		if !errors.As(err, &cerr) || len(cerr.Problems) != 1 {
			t.Fatalf("%s: err = %v, want one problem", c.name, err)
		}
		p := cerr.Problems[0]
		lines := strings.Split(c.doc, "\n")
		if p.Line != c.line || !strings.Contains(p.Message, c.want) || !strings.Contains(p.Message, lines[c.line-1]) {
			t.Errorf("%s: %s\nwant line %d saying %q and showing %q", c.name, p, c.line, c.want, lines[c.line-1])
		}
	}
}

// A document the scanner finds nothing wrong with keeps the parser's
// message, on the parser's line, with the line shown.
func TestSyntaxOtherMistakesKeepTheParserMessage(t *testing.T) {
	t.Parallel()
	_, err := Parse([]byte("target:\n  orgId: \"unclosed\n"), "c.yaml")
	var cerr *Error
	if !errors.As(err, &cerr) || cerr.Problems[0].Line == 0 || !strings.Contains(cerr.Problems[0].Message, "found unexpected end of stream") {
		t.Errorf("err = %v, want the parser's message with a line", err)
	}
}

// Every example configuration passes the scanner: it finds no mistake
// in valid YAML.
func TestSyntaxScannerAcceptsTheExamples(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob(filepath.Join("..", "examples", "*", "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	more, _ := filepath.Glob(filepath.Join("..", "internal", "starter", "parts", "*.yaml"))
	for _, p := range append(paths, more...) {
		if n, what := yamlsyntax.FindIndentMistake(strings.Split(readFile(t, p), "\n")); n > 0 {
			t.Errorf("%s:%d: %s", p, n, what)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A list item written without its '-' but lined up with the keys of the
// item above is valid YAML that repeats that item's keys: YAML would keep
// one value and drop the other rule without a word. It is a problem on the
// repeated key's line, naming the first one and the missing '-'.
func TestRepeatedKeyIsAProblem(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, doc, path string
		line            int
	}{
		{"list item without dash", "mapping:\n  - directory: eng\n    targets: [x]\n    directory: design\n    targets: [y]\n", "mapping[0].directory", 4},
		{"key given twice", "target:\n  orgId: 12AB@VendorOrg\n  baseURL: http://x\n  orgId: 34CD@VendorOrg\n", "target.orgId", 4},
		{"set field given twice", "sources:\n  - csv:\n      path: u.csv\n    set:\n      country: '\"US\"'\n      country: '\"FR\"'\n", "sources[0].set.country", 6},
	} {
		_, err := Parse([]byte(c.doc), filepath.Join(t.TempDir(), "c.yaml"))
		var cerr *Error
		if !errors.As(err, &cerr) {
			t.Fatalf("%s: err = %v, want problems", c.name, err)
		}
		found := false
		for _, p := range cerr.Problems {
			if p.Path == c.path && p.Line == c.line && strings.Contains(p.Message, "given twice") && strings.Contains(p.Message, "'- '") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: %v\nwant %s (line %d) given twice", c.name, err, c.path, c.line)
		}
	}
}
