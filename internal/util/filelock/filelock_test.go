package filelock_test

import (
	"os"
	"path/filepath"
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
