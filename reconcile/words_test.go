package reconcile

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// configWords are what the configuration's key paths and the command
// line's flags look like: a top-level block of the configuration file
// followed by a key (policy.unmatchedUsers, safety.maxRemovals,
// targets[1].policy), a list index of targets, or a flag (--output).
var configWords = regexp.MustCompile(`(^|[^\w.])(policy|safety|scope|state|schedule|notify|status|logging|target|targets|sources|mapping)(\[\d*\])?\.[a-z]|targets\[|(^|[\s("'])--[a-z]`)

// TestNamesNoConfigurationKeyOrFlag: the reconciler speaks in its own
// words (Setting); the configuration's keys and the flags are added where
// the configuration is known (Policy.Names, given by config), so that
// what the plan says is right for an organization of targets: with its
// own policy. No string and no comment of reconcile's non-test code names
// one.
func TestNamesNoConfigurationKeyOrFlag(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		check := func(pos token.Pos, text string) {
			if m := configWords.FindString(text); m != "" {
				t.Errorf("%s: names a configuration key or flag (%q) in %s", fset.Position(pos), strings.TrimSpace(m), text)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				check(lit.Pos(), lit.Value)
			}
			return true
		})
		for _, g := range f.Comments {
			for _, c := range g.List {
				check(c.Pos(), c.Text)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no source file checked")
	}
}

// The pattern finds what it is for, and not the reconciler's own Go.
func TestConfigWordsPattern(t *testing.T) {
	t.Parallel()
	for _, s := range []string{`"set policy.createUserGroups: true"`, "// targets[1].policy", `"see --output json"`, `"safety.onLimit"`, `"(policy.exclude)"`} {
		if !configWords.MatchString(s) {
			t.Errorf("%s is not found", s)
		}
	}
	for _, s := range []string{"d.policy.managedGroups()", "policy.ReadNeeds().AllUsers", "// the policy. Then", `"a--b"`, "// x-- y"} {
		if configWords.MatchString(s) {
			t.Errorf("%s is found", s)
		}
	}
}
