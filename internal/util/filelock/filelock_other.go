//go:build !unix && !windows

package filelock

import (
	"errors"
	"os"
)

// noFollow: Open checks for a link before opening.
const noFollow = 0

// Lock cannot lock on this system.
func Lock(*os.File) error { return errors.ErrUnsupported }

// TryLock cannot lock on this system.
func TryLock(*os.File) error { return errors.ErrUnsupported }

// Unlock cannot unlock on this system.
func Unlock(*os.File) error { return errors.ErrUnsupported }
