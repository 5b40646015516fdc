//go:build unix

package snapshot

import "github.com/orgsync/orgsync/internal/util/filelock"

// errBusy: the file is locked by another open file (another run).
var errBusy = filelock.ErrLocked

// lockFile takes an exclusive lock on f without waiting: errBusy when
// another run holds it. Closing f releases it.
var lockFile = filelock.TryLock
