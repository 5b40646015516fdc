package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/orgsync/orgsync/internal/util/owned"
)

// jsonLog is an append-only file of JSON lines. Each Append writes its
// lines with one write to a file opened for appending, so that a reader
// never sees half a batch of a finished write. When the file would grow
// past max it is first renamed with its rotation time (history.jsonl ->
// history-20261125T231500.000Z.jsonl), and rotated files last written
// more than keep ago are removed.
type jsonLog struct {
	path  string
	max   int64
	keep  time.Duration
	fault func(step string) error // Options.Faults
	mu    sync.Mutex
}

// Append writes each of records as one JSON line.
func (l *jsonLog) Append(records ...any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // one record a line
	for _, r := range records {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.fault("append " + filepath.Base(l.path)); err != nil {
		return err
	}
	if err := l.rotate(int64(buf.Len())); err != nil {
		return err
	}
	f, err := owned.OpenAppend(l.path)
	if err != nil {
		return err
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// rotate renames the file when adding more bytes would take it past max
// (a file that is empty stays), then prunes the rotated files.
func (l *jsonLog) rotate(more int64) error {
	fi, err := os.Stat(l.path)
	if err != nil || fi.Size() == 0 || fi.Size()+more <= l.max {
		return nil
	}
	ext := filepath.Ext(l.path)
	stamp := time.Now().UTC().Format("20060102T150405.000000000Z")
	if err := os.Rename(l.path, strings.TrimSuffix(l.path, ext)+"-"+stamp+ext); err != nil {
		return fmt.Errorf("rotating %s: %w", filepath.Base(l.path), err)
	}
	return l.prune()
}

// prune removes the rotated files last written more than keep ago.
func (l *jsonLog) prune() error {
	old, err := l.rotated()
	if err != nil {
		return err
	}
	cutoff := time.Now().Add(-l.keep)
	for _, p := range old {
		if fi, err := os.Stat(p); err == nil && fi.ModTime().Before(cutoff) {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// rotated lists the rotated files, oldest first (their names sort by
// rotation time).
func (l *jsonLog) rotated() ([]string, error) {
	ext := filepath.Ext(l.path)
	list, err := filepath.Glob(strings.TrimSuffix(l.path, ext) + "-*" + ext)
	slices.Sort(list)
	return list, err
}

// Read calls each with every line of the rotated files and the current
// one, oldest first. A line that is not valid JSON (a
// torn last line after a crash) is skipped.
func (l *jsonLog) Read(each func(line []byte)) error {
	files, err := l.rotated()
	if err != nil {
		return err
	}
	for _, p := range append(files, l.path) {
		if err := readLines(p, each); err != nil {
			return err
		}
	}
	return nil
}

// readLines calls each with every line of the file at p that is valid
// JSON; a missing file has none.
func readLines(p string, each func(line []byte)) error {
	f, err := owned.Open(p)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		if json.Valid(sc.Bytes()) {
			each(sc.Bytes())
		}
	}
	return sc.Err()
}
