package umapi

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/util/filelock"
)

// The service counts requests per access token and per API key across
// every process that uses them (contract 8): a plan and the sync started
// right after it share one window. sharedWindows keeps, in a file that
// every orgsync process of a client (service address and client ID)
// uses, when each request sent in the current windows stops counting: a
// process started within a window begins with what is left of it, and
// processes running at once (a daemon and a command) share the limits
// instead of each taking all of them.

// budgetVersion is the version of the file's format.
const budgetVersion = 1

// budgetFile is the file's content: for each window ("requests" for the
// whole application, "reads <orgId>" for an organization's access
// token), its requests still counted.
type budgetFile struct {
	Version int               `json:"version"`
	Windows map[string][]slot `json:"windows"`
}

// slot is one request still counted: until when (Unix nanoseconds; a
// request not answered yet counts for the window after its attempt
// timeout, in case its process ends without saying).
type slot struct {
	ID    string `json:"id"`
	Until int64  `json:"until"`
}

// sharedWindows is one client's side of the file.
type sharedWindows struct {
	path   string
	window time.Duration // the limits' window
	hold   time.Duration // how long a request not answered yet counts
	prefix string        // of this client's slot ids
	n      atomic.Uint64
	mu     sync.Mutex // one update of the file at a time in this process
	log    *zap.Logger
	off    atomic.Bool // the file cannot be used: the limits are this process's alone
}

// budgetFileName is the file of the client of cfg in the folder: its
// service address and client ID, hashed (the client ID is the API key).
func budgetFileName(cfg Config) string {
	sum := sha256.Sum256([]byte(cfg.BaseURL + "\n" + cfg.ClientID))
	return "client-" + hex.EncodeToString(sum[:8]) + ".json"
}

// newSharedWindows returns the shared windows of cfg's client in dir.
func newSharedWindows(dir string, cfg Config, log *zap.Logger) (*sharedWindows, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("the rate limits' folder: %w", err)
	}
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	return &sharedWindows{path: filepath.Join(dir, budgetFileName(cfg)), window: cfg.LimitWindow, hold: cfg.LimitWindow + cfg.Timeout + time.Minute,
		prefix: hex.EncodeToString(b) + "-", log: log}, nil
}

// errNewerBudget: the file was written by a later orgsync, whose format
// this one does not know.
var errNewerBudget = errors.New("written in a newer format")

// update applies fn to the file's content under the file's lock, and
// writes what fn leaves.
func (s *sharedWindows) update(fn func(b *budgetFile)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := filelock.Open(s.path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := filelock.Lock(f); err != nil {
		return err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	var b budgetFile
	if json.Unmarshal(data, &b) != nil || b.Version < budgetVersion { // empty or damaged: start again
		b = budgetFile{}
	}
	if b.Version > budgetVersion {
		return errNewerBudget
	}
	b.Version = budgetVersion
	if b.Windows == nil {
		b.Windows = map[string][]slot{}
	}
	fn(&b)
	out, err := json.Marshal(b)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(out, 0); err != nil {
		return err
	}
	return f.Truncate(int64(len(out)))
}

// take counts one more request in window key when fewer than limit are
// counted there at now: its slot id; else how long until the first of
// them stops counting.
func (s *sharedWindows) take(key string, limit int, now time.Time) (id string, wait time.Duration, err error) {
	err = s.update(func(b *budgetFile) {
		for k, slots := range b.Windows {
			b.Windows[k] = s.counted(slots, now)
			if len(b.Windows[k]) == 0 {
				delete(b.Windows, k)
			}
		}
		slots := b.Windows[key]
		if len(slots) < limit {
			id = s.prefix + strconv.FormatUint(s.n.Add(1), 10)
			b.Windows[key] = append(slots, slot{ID: id, Until: now.Add(s.hold).UnixNano()})
			return
		}
		first := slots[0].Until
		for _, sl := range slots {
			first = min(first, sl.Until)
		}
		wait = time.Unix(0, first).Sub(now)
	})
	return id, wait, err
}

// counted are the slots still counted at now: a slot that would count
// for longer than any request can (a clock set back) is dropped.
func (s *sharedWindows) counted(slots []slot, now time.Time) []slot {
	out := slots[:0]
	for _, sl := range slots {
		if until := time.Unix(0, sl.Until); until.After(now) && until.Sub(now) <= s.hold {
			out = append(out, sl)
		}
	}
	return out
}

// answered makes slot id of window key count until a window after now.
func (s *sharedWindows) answered(key, id string, now time.Time) error {
	return s.update(func(b *budgetFile) {
		for i, sl := range b.Windows[key] {
			if sl.ID == id {
				b.Windows[key][i].Until = now.Add(s.window).UnixNano()
			}
		}
	})
}

// sharedPoll bounds a wait for a window another process shares: its
// requests in flight may be answered sooner than they count for.
const sharedPoll = time.Second

// acquire waits for room in window key (limit requests); done records the
// answer. When the file cannot be used, it says so once and lets every
// request go: the limits are then this process's alone.
func (s *sharedWindows) acquire(ctx context.Context, key string, limit int) (done func(), err error) {
	for !s.off.Load() {
		id, wait, err := s.take(key, limit, time.Now())
		if err != nil {
			s.failed(err)
			break
		}
		if id != "" {
			return func() {
				if err := s.answered(key, id, time.Now()); err != nil {
					s.failed(err)
				}
			}, nil
		}
		if err := sleepOrSignal(ctx, min(wait, sharedPoll), nil); err != nil {
			return nil, err
		}
	}
	return func() {}, nil
}

// failed turns sharing off, saying why once.
func (s *sharedWindows) failed(err error) {
	if s.off.CompareAndSwap(false, true) {
		s.log.Warn("the rate limits cannot be shared with other orgsync processes through "+s.path+": this process counts its own requests only, and one started within the same minute may be answered 429",
			zap.Error(err))
	}
}
