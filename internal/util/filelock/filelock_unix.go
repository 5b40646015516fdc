//go:build unix

package filelock

import (
	"errors"
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

// TryLock takes an exclusive lock on f without waiting: ErrLocked when
// another open file holds it.
func TryLock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EAGAIN) {
		return ErrLocked
	}
	return err
}

// Unlock releases the lock on f.
func Unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
