// Package state keeps orgsync's state directory (state.dir): the history
// of applied action entries and the run records, each an append-only file
// of JSON lines rotated by size and pruned by age, and the approvals that
// a tripped safety limit holds, one JSON file each, replaced atomically.
// It writes what it is given; the callers give it nothing secret.
package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Defaults of Options.
const (
	DefaultMaxFileBytes = 10 << 20            // a log file is rotated at 10 MiB
	DefaultRetention    = 90 * 24 * time.Hour // rotated files older than this are removed
)

// Options bound the size of the state directory.
type Options struct {
	// MaxFileBytes is the size at which a log file is rotated.
	MaxFileBytes int64
	// Retention is how long rotated log files are kept.
	Retention time.Duration
}

// Dir is an open state directory.
type Dir struct {
	path    string
	history *jsonLog
	runs    *jsonLog
}

// The files and directories of a state directory.
const (
	historyFile  = "history.jsonl"
	runsFile     = "runs.jsonl"
	approvalsDir = "approvals"
)

// Open opens the state directory at path, creating it (readable by its
// owner only) when it does not exist.
func Open(path string, o Options) (*Dir, error) {
	if path == "" {
		return nil, errors.New("state directory: no path")
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.Retention <= 0 {
		o.Retention = DefaultRetention
	}
	if err := os.MkdirAll(filepath.Join(path, approvalsDir), 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	return &Dir{
		path:    path,
		history: &jsonLog{path: filepath.Join(path, historyFile), max: o.MaxFileBytes, keep: o.Retention},
		runs:    &jsonLog{path: filepath.Join(path, runsFile), max: o.MaxFileBytes, keep: o.Retention},
	}, nil
}

// Path is the directory's path.
func (d *Dir) Path() string { return d.path }
