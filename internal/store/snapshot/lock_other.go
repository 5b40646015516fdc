//go:build !unix

package snapshot

import (
	"errors"
	"os"
)

// errBusy is never returned here: see lockFile.
var errBusy = errors.New("locked")

// lockFile cannot lock on this system: the snapshot is then never updated
// (incremental runs need a Unix system).
func lockFile(*os.File) error { return errors.ErrUnsupported }
