package filelock_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/util/filelock"
)

// TestLockWaitsForTheHolder: a second open file of the same path (as
// another process has) waits until the first releases its lock.
func TestLockWaitsForTheHolder(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "lock")
	open := func() *os.File {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, b := open(), open()
	if err := filelock.Lock(a); err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() { got <- filelock.Lock(b) }()
	select {
	case err := <-got:
		t.Fatalf("the second lock was taken while the first was held (%v)", err)
	case <-time.After(100 * time.Millisecond):
	}
	if err := filelock.Unlock(a); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the second lock was not taken once the first was released")
	}
}

// TestTryLockDoesNotWait: a second open file of the same path is told at
// once that the lock is held (ErrLocked), and takes it once it is
// released.
func TestTryLockDoesNotWait(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "lock")
	var files [2]*os.File
	for i := range files {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		files[i] = f
	}
	if err := filelock.TryLock(files[0]); err != nil {
		t.Fatal(err)
	}
	if err := filelock.TryLock(files[1]); !errors.Is(err, filelock.ErrLocked) {
		t.Fatalf("a second lock while the first is held: %v, want ErrLocked", err)
	}
	if err := filelock.Unlock(files[0]); err != nil {
		t.Fatal(err)
	}
	if err := filelock.TryLock(files[1]); err != nil {
		t.Fatalf("the lock once released: %v", err)
	}
}

// TestOpenRefusesALink: a symbolic link where the file goes is refused,
// and what it points to is left as it was.
func TestOpenRefusesALink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "state.json")
	if err := os.Symlink(target, link); err != nil {
		if runtime.GOOS == "windows" { // making one takes a privilege the user may not have
			t.Skipf("no symbolic links here: %v", err)
		}
		t.Fatal(err)
	}
	if f, err := filelock.Open(link); err == nil {
		f.Close()
		t.Fatal("a symbolic link was opened")
	}
	f, err := filelock.Open(filepath.Join(dir, "new.json"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}
