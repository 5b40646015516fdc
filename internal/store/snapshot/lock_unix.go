//go:build unix

package snapshot

import (
	"errors"
	"os"
	"syscall"
)

// errBusy: the file is locked by another open file (another run).
var errBusy = syscall.EWOULDBLOCK

// lockFile takes an exclusive lock on f without waiting: errBusy when
// another run holds it. Closing f releases it.
func lockFile(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EAGAIN) {
		return errBusy
	}
	return err
}
