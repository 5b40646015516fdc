package main

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/orgsync/orgsync/examples"
)

// copyExamples writes the embedded example files under dir, readable by
// their owner only (they include the demo's credentials).
func copyExamples(dir string) error {
	return fs.WalkDir(examples.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := examples.FS.ReadFile(path)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o600)
	})
}
