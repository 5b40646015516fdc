// Package sourcetest holds what the file sources' tests share: writing an
// input file and reading it through a source.
package sourcetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/mapping"
)

// Identity returns the mapping rule that maps every directory group to the
// target group of the same name.
func Identity() []mapping.Rule {
	return []mapping.Rule{{Pattern: "(.*)", Targets: []string{"$1"}}}
}

// Read writes content to a file called name in a new temporary directory,
// opens a source on it with open (given the file's path and the mapper of
// rules) and reads it. It returns Read's result and error, and the path.
func Read(t testing.TB, name, content string, rules []mapping.Rule,
	open func(path string, m *mapping.Mapper) (source.Source, error)) (*source.Result, string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := mapping.New(rules)
	if err != nil {
		t.Fatal(err)
	}
	src, err := open(path, m)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	res, err := src.Read(context.Background())
	return res, path, err
}
