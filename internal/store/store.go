// Package store keeps orgsync's state directory (state.dir): the history
// of applied action entries and the run records, each an append-only file
// of JSON lines rotated by size and pruned by age, and the approvals that
// a tripped safety limit holds, one JSON file each, replaced atomically.
// It writes what it is given; the callers give it nothing secret.
package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/util/owned"
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
	// Faults, when set, is asked before each write to the directory (an
	// append, an approval saved, a journal line, a file renamed or
	// removed), named by step; an error fails that write as a full disk
	// would. Tests inject a full disk, or a crash, at each step.
	Faults func(step string) error
}

// Dir is an open state directory.
type Dir struct {
	path    string
	history *jsonLog
	runs    *jsonLog
	faults  func(step string) error
}

// The files and directories of a state directory.
const (
	historyFile  = "history.jsonl"
	runsFile     = "runs.jsonl"
	approvalsDir = "approvals"
)

// Open opens the state directory at path, creating it (readable by its
// owner only) when it does not exist. A directory another user could
// change (writable by others, owned by another user, its files links) is
// refused, with the chmod or chown that fixes it: orgsync acts on its
// approvals and keeps its history there.
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
	if err := trusted(path); err != nil {
		return nil, err
	}
	d := &Dir{path: path, faults: o.Faults}
	d.history = &jsonLog{path: filepath.Join(path, historyFile), max: o.MaxFileBytes, keep: o.Retention, fault: d.fault}
	d.runs = &jsonLog{path: filepath.Join(path, runsFile), max: o.MaxFileBytes, keep: o.Retention, fault: d.fault}
	return d, nil
}

// fault asks Options.Faults about step, when set.
func (d *Dir) fault(step string) error {
	if d.faults == nil {
		return nil
	}
	return d.faults(step)
}

// trusted checks that no one but the user running orgsync can change the
// state directory at path (see owned): the folder, its history and run
// records (the rotated ones too), and every folder in it (the approvals,
// the snapshots, the rate limits: what a run acts on) with every file in
// them.
func trusted(path string) error {
	return trustedFolder(path, logFile, func(dir string) error {
		return trustedFolder(dir, func(string) bool { return true }, nil)
	})
}

// trustedFolder checks the folder dir of the state directory, the files in
// it that files selects, and each folder in it with sub (nil: none).
func trustedFolder(dir string, files func(name string) bool, sub func(dir string) error) error {
	if err := owned.Dir("state directory", dir); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch folder := isFolder(p); {
		case folder && sub != nil:
			err = sub(p)
		case !folder && files(e.Name()):
			err = owned.File("state file", p)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// logFile reports whether a file of the state directory named name is
// the history or the run records, current or rotated
// (history-20261125T231500.000Z.jsonl).
func logFile(name string) bool {
	for _, f := range []string{historyFile, runsFile} {
		if base := strings.TrimSuffix(f, filepath.Ext(f)); name == f || strings.HasPrefix(name, base+"-") {
			return true
		}
	}
	return false
}

// isFolder reports whether there is a folder at path (a link to one
// included: owned.Dir checks what it leads to).
func isFolder(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// Path is the directory's path.
func (d *Dir) Path() string { return d.path }

// Check reports whether the state directory at path can be written and
// is orgsync's own (see Open), changing nothing that is there: it (or,
// while it does not exist, the nearest folder above it) takes a new file,
// and its history, run records and approvals folder, where they exist,
// can be written to and are no one else's.
func Check(path string) error {
	dir := path
	for {
		if _, err := os.Stat(dir); !os.IsNotExist(err) || filepath.Dir(dir) == dir {
			break
		}
		dir = filepath.Dir(dir)
	}
	if err := writable(dir); err != nil {
		return err
	}
	if dir != path {
		return nil // made at the first run
	}
	if err := trusted(path); err != nil {
		return err
	}
	for _, name := range []string{historyFile, runsFile} {
		f, err := os.OpenFile(filepath.Join(path, name), os.O_APPEND|os.O_WRONLY, 0)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("%s cannot be appended to: %w", name, err)
		}
		f.Close()
	}
	if _, err := os.Stat(filepath.Join(path, approvalsDir)); err == nil {
		return writable(filepath.Join(path, approvalsDir))
	}
	return nil
}

// writable reports whether dir is a folder a file can be made in (a
// probe file, removed at once).
func writable(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	f, err := os.CreateTemp(dir, ".orgsync-check-*")
	if err != nil {
		return fmt.Errorf("no file can be written in %s: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}
