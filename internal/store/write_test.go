package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheck: a state directory that cannot be written is found before a
// run: a path under a file, a history that is not a file; one that does
// not exist yet, under a folder that does, is fine.
func TestCheck(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Check(filepath.Join(base, "new", "state")); err != nil {
		t.Errorf("a state directory to be made: %v", err)
	}
	if err := Check(file); err == nil || !strings.Contains(err.Error(), "is not a folder") {
		t.Errorf("a file as the state directory: %v", err)
	}
	dir := filepath.Join(base, "state")
	if _, err := Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Check(dir); err != nil {
		t.Errorf("a fresh state directory: %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, historyFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Check(dir); err == nil || !strings.Contains(err.Error(), "history.jsonl cannot be appended to") {
		t.Errorf("a history that is a folder: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("the check left files behind: %v", entries)
	}
}
