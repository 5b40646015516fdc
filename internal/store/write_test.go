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
	t.Parallel()
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

// TestEveryFolderOfTheStateDirectoryIsChecked: the promise that no one
// else can change what orgsync keeps holds for every folder of the state
// directory (the snapshots and the rate limits, not only the approvals)
// and the files in them: a folder writable by every user, or a file in
// it that is a link, is refused by Open and Check with what fixes it.
func TestEveryFolderOfTheStateDirectoryIsChecked(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "state")
	if _, err := Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"snapshots", "limits"} {
		folder := filepath.Join(dir, sub)
		if err := os.Mkdir(folder, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(folder, 0o777); err != nil {
			t.Fatal(err)
		}
		for name, check := range map[string]func() error{"Open": func() error { _, err := Open(dir, Options{}); return err }, "Check": func() error { return Check(dir) }} {
			if err := check(); err == nil || !strings.Contains(err.Error(), "chmod 0700 "+folder) {
				t.Errorf("%s of a state directory whose %s folder every user can write: %v", name, sub, err)
			}
		}
		if err := os.Chmod(folder, 0o700); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(folder, "org-default.snapshot")
		if err := os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), link); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(dir, Options{}); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
			t.Errorf("Open of a state directory with a link in its %s folder: %v", sub, err)
		}
		if err := os.Remove(link); err != nil {
			t.Fatal(err)
		}
	}
	rotated := filepath.Join(dir, "history-20261125T231500.000Z.jsonl")
	if err := os.WriteFile(rotated, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(rotated, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{}); err == nil || !strings.Contains(err.Error(), "chmod 0600 "+rotated) {
		t.Errorf("Open of a state directory whose rotated history every user can write: %v", err)
	}
}
