package docs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source/all"
)

// The rules of design.md that a test can check, checked on the tree's Go
// files as they are (test files, testdata and hidden folders left out).

const module = "github.com/orgsync/orgsync/"

// goFile is one Go file of the tree, parsed.
type goFile struct {
	dir  string // the package's folder, from the repository's root ("internal/run")
	path string
	file *ast.File
	fset *token.FileSet
}

// imports are the packages of ours the file imports, as folders.
func (f *goFile) imports() []string {
	var out []string
	for _, imp := range f.file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if rest, ok := strings.CutPrefix(p, module); ok {
			out = append(out, rest)
		}
	}
	return out
}

// treeFiles parses every non-test Go file of the repository.
func treeFiles(t *testing.T) []goFile {
	t.Helper()
	out := goFiles(t, func(name string) bool { return !strings.HasSuffix(name, "_test.go") })
	if len(out) < 100 {
		t.Fatalf("%d Go files found: the tree was not read", len(out))
	}
	return out
}

// goFiles parses the Go files of the repository whose names keep keeps
// (hidden folders, folders whose names begin with _ and testdata left
// out).
func goFiles(t *testing.T, keep func(name string) bool) []goFile {
	t.Helper()
	var out []goFile
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != ".." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || !keep(name) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("..", filepath.Dir(path))
		out = append(out, goFile{dir: filepath.ToSlash(rel), path: path, file: f, fset: fset})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// under reports whether folder dir is folder root or inside it.
func under(dir, root string) bool { return dir == root || strings.HasPrefix(dir, root+"/") }

// floors are the rooms of internal/, from the top down: a room imports
// only rooms below it (and internal/util, the ground floor).
var floors = [][]string{
	{"internal/demo"},
	{"internal/daemon", "internal/admin"},
	{"internal/view"},
	{"internal/changecontrol"},
	{"internal/run"},
	{"internal/store"},
	{"internal/util"},
}

// floorOf is the floor of folder dir (0 the top), -1 outside internal/.
func floorOf(dir string) int {
	for i, rooms := range floors {
		if slices.ContainsFunc(rooms, func(r string) bool { return under(dir, r) }) {
			return i
		}
	}
	return -1
}

// TestDependenciesFlowOneWay: nothing imports cmd; a room of internal/
// imports only the rooms below it; config, secret, source, target and
// reconcile import nothing of internal/ but its ground floor, internal/util
// (and the tests' internal/testenv); and internal/util nothing of ours
// above reconcile.
func TestDependenciesFlowOneWay(t *testing.T) {
	t.Parallel()
	for _, f := range treeFiles(t) {
		for _, imp := range f.imports() {
			from, to := floorOf(f.dir), floorOf(imp)
			switch {
			case under(imp, "cmd"):
				t.Errorf("%s imports %s: nothing imports the program", f.path, imp)
			case from >= 0 && to >= 0 && to < from:
				t.Errorf("%s imports %s: %s is a floor above %s", f.path, imp, floors[to][0], floors[from][0])
			case from < 0 && !under(f.dir, "cmd") && !under(f.dir, "tools") && under(imp, "internal") && !under(imp, "internal/util"):
				t.Errorf("%s imports %s: below internal/, only internal/util may be imported", f.path, imp)
			case under(f.dir, "internal/util") && !under(imp, "internal/util") && imp != "reconcile":
				t.Errorf("%s imports %s: internal/util is the ground floor, above reconcile only", f.path, imp)
			}
		}
	}
}

// TestReconcileImportsNothingOfOurs: the core knows no other package of
// ours.
func TestReconcileImportsNothingOfOurs(t *testing.T) {
	t.Parallel()
	n := 0
	for _, f := range treeFiles(t) {
		if f.dir != "reconcile" {
			continue
		}
		n++
		for _, imp := range f.imports() {
			t.Errorf("%s imports %s", f.path, imp)
		}
	}
	if n == 0 {
		t.Fatal("no file of reconcile found")
	}
}

// TestTheCoreWritesNoText: the reconciler, the run and the demo's steps
// write no text of their own (no fmt.Fprint or fmt.Print): they return data
// and events, which the views write (errors and log messages are built
// with Errorf and Sprintf).
func TestTheCoreWritesNoText(t *testing.T) {
	t.Parallel()
	for _, f := range treeFiles(t) {
		if f.dir != "reconcile" && !under(f.dir, "internal/run") && f.dir != "internal/demo/steps" {
			continue
		}
		ast.Inspect(f.file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "fmt" && (strings.HasPrefix(sel.Sel.Name, "Fprint") || strings.HasPrefix(sel.Sel.Name, "Print")) {
					t.Errorf("%s: fmt.%s: the views write text (internal/view, internal/util/oneline)", f.fset.Position(call.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
	}
}

// TestNoSourceKindNamedOutsideItsPackage: a new source kind is its
// package and one line of the registry: the configuration, the run, the
// views, the state, the demo's steps, orgsync test, migrate's check and
// the examples name no kind (a string that is a kind's key), they ask the
// registry.
func TestNoSourceKindNamedOutsideItsPackage(t *testing.T) {
	t.Parallel()
	keys := map[string]bool{}
	for _, k := range all.Kinds() {
		keys[k.Key] = true
	}
	checked := []string{"config", "internal/run", "internal/view", "internal/store", "internal/demo/steps", "internal/admin/mappingtest",
		"internal/admin/migrate/check.go", "examples"}
	for _, f := range treeFiles(t) {
		rel := filepath.ToSlash(strings.TrimPrefix(f.path, "../"))
		if !slices.ContainsFunc(checked, func(c string) bool { return under(f.dir, c) || rel == c }) {
			continue
		}
		ast.Inspect(f.file, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Get" {
					return false // a struct tag's key: f.Tag.Get("yaml")
				}
			}
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && keys[s] {
					t.Errorf("%s: names source kind %q: ask the registry (source/all) instead", f.fset.Position(lit.Pos()), s)
				}
			}
			return true
		})
	}
}

// TestEveryPackageSaysWhatItIs: every package has a doc comment, the map's
// next level down.
func TestEveryPackageSaysWhatItIs(t *testing.T) {
	t.Parallel()
	documented, seen := map[string]bool{}, map[string]bool{}
	for _, f := range treeFiles(t) {
		seen[f.dir] = true
		if f.file.Doc != nil {
			documented[f.dir] = true
		}
	}
	for dir := range seen {
		if !documented[dir] {
			t.Errorf("package %s has no doc comment", dir)
		}
	}
}

// TestEveryKindIsInTheDesign: every change kind of the reconciler's table
// has its row in design.md's table of change kinds: a kind added to the
// table fails here until it is described.
func TestEveryKindIsInTheDesign(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("design.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(data), "## The change kinds\n")
	described := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "|") {
			if len(described) > 0 {
				break // the end of the table
			}
			continue
		}
		cells := strings.Split(line, "|")
		for _, name := range strings.Split(cells[1], "/") {
			if f := strings.Fields(name); len(f) > 0 {
				described[f[0]] = true
			}
		}
	}
	for _, k := range reconcile.Kinds() {
		if !described[string(k)] {
			t.Errorf("kind %s has no row in the table of design.md's \"The change kinds\"", k)
		}
	}
}
