//go:build unix

package filelock

import (
	"os"
	"syscall"
)

// noFollow makes opening a symbolic link fail, whoever put it there
// between the check and the open.
const noFollow = syscall.O_NOFOLLOW

// Lock waits for an exclusive lock on f.
func Lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

// Unlock releases the lock on f.
func Unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
