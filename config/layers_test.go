package config

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestConfigNamesNoSourceKind: the configuration reaches the source kinds
// through their registry (source/all) only, and embeds no example: adding
// a kind or an example changes nothing here.
func TestConfigNamesNoSourceKind(t *testing.T) {
	t.Parallel()
	allowed := map[string]bool{
		"github.com/orgsync/orgsync/source": true, "github.com/orgsync/orgsync/source/all": true, "github.com/orgsync/orgsync/source/diag": true,
		"github.com/orgsync/orgsync/source/expr": true, "github.com/orgsync/orgsync/source/mapping": true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			kind := strings.HasPrefix(path, "github.com/orgsync/orgsync/source/") && !allowed[path]
			if kind || path == "github.com/orgsync/orgsync/examples" {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
}
