package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMappingTestCommand: orgsync test exits 0 when every expectation of
// its files is met, 1 when one is not (with the difference) or no file is
// named.
func TestMappingTestCommand(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	ok := filepath.Join(dir, "csv", "orgsync.test.yaml")
	if r := runBinary(t, nil, "test", ok, filepath.Join(dir, "multiorg", "orgsync.test.yaml")); r.code != exitOK || !strings.Contains(r.stdout, "4 expectations met, 0 not") {
		t.Errorf("orgsync test (met): exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	bad := filepath.Join(dir, "csv", "bad.test.yaml")
	if err := os.WriteFile(bad, []byte("expect:\n  - {user: alice@example.com, groups: [Design]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runBinary(t, nil, "test", bad); r.code != exitError || !strings.Contains(r.stdout, "FAIL "+bad+":2: alice@example.com: groups differ") {
		t.Errorf("orgsync test (not met): exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runBinary(t, nil, "test"); r.code != exitError || !strings.Contains(r.stderr, "orgsync test: name the test files") {
		t.Errorf("orgsync test (no file): exit %d\n%s", r.code, r.stderr)
	}
}
