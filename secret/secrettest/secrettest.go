// Package secrettest gives tests a secret of their own: a reference to a
// file in the test's temporary folder, not an environment variable, which
// every test running in parallel would share (and t.Setenv forbids
// t.Parallel).
package secrettest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/orgsync/orgsync/secret"
)

// File writes value to a file of t's own (mode 0600) and returns a
// reference to it.
func File(t testing.TB, value string) secret.Ref {
	t.Helper()
	path := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(path, []byte(value), 0o600); err != nil {
		t.Fatal(err)
	}
	return secret.Ref{File: path}
}
