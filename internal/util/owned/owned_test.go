package owned

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/internal/util/testenv"
)

// TestDirRefusesWhatOthersCanChange: a folder writable by every user, or
// by a group that is not orgsync's, or owned by another user, is refused
// with the command that fixes it; the folder orgsync makes is accepted,
// and one writable by orgsync's own group (a Kubernetes volume's
// fsGroup) too.
func TestDirRefusesWhatOthersCanChange(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows: access lists, not modes")
	}
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Dir("state.dir", dir); err != nil {
		t.Errorf("a folder of its own, mode 0700: %v", err)
	}
	chmod(t, dir, 0o777)
	if err := Dir("state.dir", dir); err == nil || !strings.Contains(err.Error(), "can be written by every user (mode 0777)") ||
		!strings.Contains(err.Error(), "chmod 0700 "+dir) {
		t.Errorf("mode 0777: %v", err)
	}
	chmod(t, dir, 0o770)
	if err := Dir("state.dir", dir); err != nil {
		t.Errorf("writable by orgsync's own group: %v", err)
	}
	t.Run("another user's or group's", func(t *testing.T) {
		testenv.Root(t, "making another user's or group's folder")
		chown(t, dir, 0, 65534)
		if err := Dir("state.dir", dir); err == nil || !strings.Contains(err.Error(), "can be written by its group") || !strings.Contains(err.Error(), "chmod 0700") {
			t.Errorf("writable by another group: %v", err)
		}
		chmod(t, dir, 0o700)
		chown(t, dir, 65534, 0)
		if err := Dir("state.dir", dir); err == nil || !strings.Contains(err.Error(), "belongs to") || !strings.Contains(err.Error(), "fix it with chown "+chownName(0)+" "+dir+" (") {
			t.Errorf("another user's folder (the chown a command to paste): %v", err)
		}
	})
}

// TestFileIsNeverALink: a file that is a link is refused by File, and
// OpenAppend does not write through one, planted after any check: the
// file it leads to is left as it was.
func TestFileIsNeverALink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target, link := filepath.Join(dir, "elsewhere"), filepath.Join(dir, "history.jsonl")
	if err := os.WriteFile(target, []byte("theirs\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	symlink(t, target, link)
	if err := File("state file", link); !errors.Is(err, ErrLink) {
		t.Errorf("File of a link: %v", err)
	}
	if f, err := OpenAppend(link); !errors.Is(err, ErrLink) {
		if f != nil {
			f.Write([]byte("ours\n"))
			f.Close()
		}
		t.Errorf("OpenAppend through a link: %v", err)
	}
	if _, err := ReadFile(link); !errors.Is(err, ErrLink) {
		t.Errorf("ReadFile through a link: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "theirs\n" {
		t.Errorf("the link's target became %q", b)
	}
	if err := File("state file", filepath.Join(dir, "missing")); err != nil {
		t.Errorf("a file not made yet: %v", err)
	}
}

// TestFileRefusesWhatOthersCanChange: a file writable by its group or
// another user's is refused; orgsync's own 0600 file is accepted.
func TestFileRefusesWhatOthersCanChange(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows: access lists, not modes")
	}
	t.Parallel()
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := File("state file", path); err != nil {
		t.Errorf("0600: %v", err)
	}
	chmod(t, path, 0o660)
	if err := File("state file", path); err == nil || !strings.Contains(err.Error(), "chmod 0600 "+path) {
		t.Errorf("0660: %v", err)
	}
	t.Run("another user's", func(t *testing.T) {
		testenv.Root(t, "making another user's file")
		chmod(t, path, 0o600)
		chown(t, path, 65534, 65534)
		if err := File("state file", path); err == nil || !strings.Contains(err.Error(), "belongs to") {
			t.Errorf("another user's file: %v", err)
		}
	})
}

// symlink makes a symbolic link, or skips t on Windows, where making one
// takes a privilege the user may not have.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		if runtime.GOOS == "windows" {
			t.Skipf("no symbolic links here: %v", err)
		}
		t.Fatal(err)
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func chown(t *testing.T, path string, uid, gid int) {
	t.Helper()
	if err := os.Chown(path, uid, gid); err != nil {
		t.Fatal(err)
	}
}
