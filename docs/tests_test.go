package docs_test

import (
	"go/ast"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The rules of the tests themselves, checked on the test files and the
// tests' harnesses (the Go files that import testing).

// testFiles parses the Go files that import testing: the tests and
// their harnesses.
func testFiles(t *testing.T) []goFile {
	t.Helper()
	var out []goFile
	for _, f := range goFiles(t, func(string) bool { return true }) {
		if slices.ContainsFunc(f.file.Imports, func(imp *ast.ImportSpec) bool { return imp.Path.Value == `"testing"` }) {
			out = append(out, f)
		}
	}
	if len(out) < 200 {
		t.Fatalf("%d test files found: the tree was not read", len(out))
	}
	return out
}

// call reports whether n calls pkg.name (a selector; pkg "" for any).
func call(n ast.Node, pkg, name string) bool {
	c, ok := n.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return pkg == "" || ok && id.Name == pkg
}

// mentions reports whether e reads runtime.GOOS or calls Getenv.
func mentions(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Getenv" || sel.Sel.Name == "GOOS") {
			found = true
		}
		return !found
	})
	return found
}

// TestSkipsOnlyThroughTestenv: a test that needs a program, a server or
// root asks internal/util/testenv, which fails it under CI=true and skips it
// elsewhere; no test looks for a program itself (exec.LookPath), checks
// for root itself (os.Geteuid) or skips in short mode, and a test skips
// by itself only for a condition it names: the platform (runtime.GOOS) or
// a variable of the environment (a child process's marker, an opt-in
// benchmark's switch).
func TestSkipsOnlyThroughTestenv(t *testing.T) {
	t.Parallel()
	for _, f := range testFiles(t) {
		if strings.Contains(filepath.ToSlash(f.path), "internal/util/testenv/") {
			continue
		}
		var stack []ast.Node
		ast.Inspect(f.file, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			stack = append(stack, n)
			at := f.fset.Position(n.Pos())
			switch {
			case call(n, "testing", "Short"):
				t.Errorf("%s: testing.Short: every test runs in make test", at)
			case call(n, "exec", "LookPath"):
				t.Errorf("%s: exec.LookPath: a test finds its program with testenv.Program", at)
			case call(n, "os", "Geteuid"):
				t.Errorf("%s: os.Geteuid: a test that needs root says so with testenv.Root", at)
			case call(n, "", "Skip") || call(n, "", "Skipf") || call(n, "", "SkipNow"):
				if !underCondition(stack) {
					t.Errorf("%s: a skip for a reason of its own: a missing program or server goes through testenv (Program, Installed, Missing), which fails under CI=true", at)
				}
			}
			return true
		})
	}
}

// underCondition reports whether the innermost if around the last node
// of stack tests the platform or the environment.
func underCondition(stack []ast.Node) bool {
	for i := len(stack) - 2; i >= 0; i-- {
		if s, ok := stack[i].(*ast.IfStmt); ok {
			return mentions(s.Cond)
		}
	}
	return false
}
