// Package filelock takes an exclusive lock on an open file, held until
// the file is closed or Unlock is called (or the process ends, however it
// ends): flock on Unix, LockFileEx on Windows. Lock waits for another
// open file's lock (another process's, or this one's elsewhere); TryLock
// does not: ErrLocked. Elsewhere both return errors.ErrUnsupported. Open
// opens such a file without following a symbolic link.
package filelock

import (
	"errors"
	"fmt"
	"os"
)

// ErrLocked is TryLock's error when another open file holds the lock.
var ErrLocked = errors.New("locked")

// Open opens path for reading and writing, made (mode 0600) when
// missing; a symbolic link there is refused, not followed: a state file
// is never written through a link someone else planted.
func Open(path string) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is a symbolic link: remove it (orgsync makes the file)", path)
	}
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o600)
}
