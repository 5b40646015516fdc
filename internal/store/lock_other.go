//go:build !unix && !windows

package store

import (
	"errors"
	"os"
)

// lockFile: this system has no file locks orgsync uses.
func lockFile(*os.File) error { return errors.ErrUnsupported }
