package serverproc

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// maxIdle is how long a cached server directory may go unused before a
// new one being cached removes it.
const maxIdle = 24 * time.Hour

// Cached returns cacheDir/name, a server's files made once (a domain, an
// instance) and copied for each server that needs the same. The first
// time, build makes them in a new directory beside it (dir), knowing where
// they will be (final) for the paths they hold, and they are renamed into
// place; another process making the same meanwhile is fine. Then the
// directories of cacheDir of the same kind (name up to its first "-")
// unused for a day are removed. Each call counts as a use.
func Cached(cacheDir, name string, build func(dir, final string) error) (string, error) {
	final := filepath.Join(cacheDir, name)
	if _, err := os.Stat(final); err != nil {
		if err := cache(cacheDir, final, build); err != nil {
			return "", err
		}
	}
	now := time.Now()
	_ = os.Chtimes(final, now, now)
	return final, nil
}

func cache(cacheDir, final string, build func(dir, final string) error) error {
	if err := os.MkdirAll(cacheDir, 0o700); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(cacheDir, "new-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	made := filepath.Join(tmp, "made")
	if err := build(made, final); err != nil {
		return err
	}
	if err := os.Rename(made, final); err != nil {
		if _, statErr := os.Stat(final); statErr != nil { // not made meanwhile by another process
			return err
		}
	}
	kind, _, _ := strings.Cut(filepath.Base(final), "-")
	old, _ := filepath.Glob(filepath.Join(cacheDir, kind+"-*"))
	for _, d := range old {
		if st, err := os.Stat(d); err == nil && d != final && time.Since(st.ModTime()) > maxIdle {
			_ = os.RemoveAll(d)
		}
	}
	return nil
}
