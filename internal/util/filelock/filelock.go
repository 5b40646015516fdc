// Package filelock takes an exclusive lock on an open file, held until
// the file is closed or Unlock is called, which other processes that lock
// the same file wait for: flock on Unix, LockFileEx on Windows. Elsewhere
// Lock returns errors.ErrUnsupported. Open opens such a file without
// following a symbolic link.
package filelock

import (
	"fmt"
	"os"
)

// Open opens path for reading and writing, made (mode 0600) when
// missing; a symbolic link there is refused, not followed: a state file
// is never written through a link someone else planted.
func Open(path string) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is a symbolic link: remove it (orgsync makes the file)", path)
	}
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o600)
}
