// Package filelock takes an exclusive lock on an open file, held until
// the file is closed or Unlock is called, which other processes that lock
// the same file wait for: flock on Unix, LockFileEx on Windows. Elsewhere
// Lock returns errors.ErrUnsupported.
package filelock
