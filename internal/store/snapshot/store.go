package snapshot

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/orgsync/orgsync/internal/util/atomicfile"
)

// Store is the snapshots folder of a state directory: for each
// organization (by its name in the configuration) its snapshot, its lock
// file and, while a run sends changes it has not recorded yet, its
// sending marker.
type Store struct{ dir string }

// Folder is the store's folder in the state directory.
const Folder = "snapshots"

// ErrMissing is the error of Load when the organization has no snapshot.
var ErrMissing = errors.New("no snapshot")

// Open opens the snapshots folder of the state directory at stateDir.
// Reading makes nothing; the folder (readable by its owner only) is made
// when a run first locks a snapshot.
func Open(stateDir string) *Store { return &Store{dir: filepath.Join(stateDir, Folder)} }

// makeFolder makes the store's folder, readable by its owner only, when
// it does not exist.
func (s *Store) makeFolder() error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("snapshots: %w", err)
	}
	return nil
}

// path is the file of organization org with the extension ext.
func (s *Store) path(org, ext string) string { return filepath.Join(s.dir, "org-"+org+ext) }

// Load reads organization org's snapshot: ErrMissing when it has none;
// ErrNotSnapshot, ErrFormat or ErrDamaged when the file cannot be taken
// for one.
func (s *Store) Load(org string) (*Snapshot, error) {
	f, err := os.Open(s.path(org, ".snapshot"))
	if os.IsNotExist(err) {
		return nil, ErrMissing
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return Decode(f, fi.Size())
}

// Save replaces organization org's snapshot with snap, atomically, and
// then removes its sending marker: what the marker announced is recorded.
func (s *Store) Save(org string, snap *Snapshot) error {
	if err := s.makeFolder(); err != nil {
		return err
	}
	if err := atomicfile.Write(s.path(org, ".snapshot"), func(w io.Writer) error { return Encode(w, snap) }); err != nil {
		return fmt.Errorf("saving the snapshot: %w", err)
	}
	return s.Unmark(org)
}

// MarkSending records, before a run sends its first change to
// organization org, that it does (note says which run, since when). The
// marker stays until the snapshot records what was sent (Save) or nothing
// was (Unmark): a run that finds it knows that the snapshot may lack
// changes a run applied.
func (s *Store) MarkSending(org, note string) error {
	if err := s.makeFolder(); err != nil {
		return err
	}
	return atomicfile.Write(s.path(org, ".sending"), func(w io.Writer) error {
		_, err := io.WriteString(w, note)
		return err
	})
}

// Sending returns the note of organization org's sending marker, and
// whether there is one.
func (s *Store) Sending(org string) (string, bool, error) {
	b, err := os.ReadFile(s.path(org, ".sending"))
	if os.IsNotExist(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return strings.TrimSpace(string(b)), true, nil
}

// Unmark removes organization org's sending marker.
func (s *Store) Unmark(org string) error {
	if err := os.Remove(s.path(org, ".sending")); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// Lock is the lock of one organization's snapshot: while a run holds it,
// no other run loads the snapshot to update it. The operating system
// releases it when the process ends, however it ends.
type Lock struct{ f *os.File }

// ErrLocked is the error of Store.Lock when another run holds the lock;
// the error says which run (the note it locked with).
var ErrLocked = errors.New("another run holds the snapshot's lock")

// Lock takes organization org's snapshot lock without waiting, noting who
// holds it (note: the process and since when).
func (s *Store) Lock(org, note string) (*Lock, error) {
	if err := s.makeFolder(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(s.path(org, ".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		holder, _ := io.ReadAll(io.LimitReader(f, 512))
		f.Close()
		if errors.Is(err, errBusy) {
			return nil, fmt.Errorf("%w (%s)", ErrLocked, strings.TrimSpace(string(holder)))
		}
		return nil, fmt.Errorf("locking the snapshot: %w", err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(note+"\n"), 0)
	}
	return &Lock{f: f}, nil
}

// Unlock releases the lock.
func (l *Lock) Unlock() error { return l.f.Close() }

// Stamp identifies organization org's snapshot file as it is now (its
// modification time and size; "" when there is none): a run that planned
// from one snapshot compares it before recording, so that it never
// replaces a snapshot another run wrote meanwhile.
func (s *Store) Stamp(org string) (string, error) {
	fi, err := os.Stat(s.path(org, ".snapshot"))
	if os.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d/%d", fi.ModTime().UnixNano(), fi.Size()), nil
}
