// Package atomicfile replaces a file so that a reader sees the old content
// or the new, never a part of it: the content goes to a temporary file in
// the same directory, which is synced and then renamed over the target.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// Write replaces path with what write writes (mode 0600 for a new file).
// On any error path is left as it was and no temporary file remains.
func Write(path string, write func(w io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
