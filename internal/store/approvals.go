package store

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/store/planjson"
	"github.com/orgsync/orgsync/internal/util/atomicfile"
	"github.com/orgsync/orgsync/internal/util/owned"
)

// Approval states.
const (
	Pending  = "pending"
	Approved = "approved" // applied by orgsync approve
	Rejected = "rejected" // discarded by orgsync reject
	Dropped  = "dropped"  // a later run no longer wanted any of its changes
)

// Approval is the set of changes a tripped safety limit held back from
// one organization's run, waiting for orgsync approve or reject.
type Approval struct {
	ID      string    `json:"id"`
	Org     string    `json:"org"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Run is the run that held the changes (the last one that updated it).
	Run string `json:"run"`
	// Reason is the safety limit's message.
	Reason string `json:"reason"`
	Status string `json:"status"`
	// Changes are the changes it holds, written in planjson's form.
	Changes planjson.Changes `json:"changes"`
	// Closed is when it was approved, rejected or dropped; Decided says
	// who decided it, and how.
	Closed  time.Time `json:"closed,omitzero"`
	Decided *Decider  `json:"decided,omitempty"`
	// Narrowed lists each run that took changes out of it because the
	// sources no longer asked for them.
	Narrowed []Narrowing `json:"narrowed,omitempty"`
	// TakenUp is, on a rejected approval, the first real run after the
	// rejection (until then its changes are held); that run held again
	// what the sources still asked for in approval HeldAgain.
	TakenUp   string `json:"takenUp,omitempty"`
	HeldAgain string `json:"heldAgain,omitempty"`
	// Attempts are the last attempts to approve it that failed (at most
	// MaxAttempts, the latest last): it stayed pending.
	Attempts []Attempt `json:"attempts,omitempty"`
}

// MaxAttempts bounds the failed attempts an approval keeps.
const MaxAttempts = 10

// Attempt is one failed attempt to approve an approval: who tried, when,
// in which run, and where and why it failed (the run's phase and error).
type Attempt struct {
	Time    time.Time `json:"time"`
	Run     string    `json:"run"`
	Decided Decider   `json:"decided"`
	Phase   string    `json:"phase"`
	Error   string    `json:"error"`
}

// Failed records a failed attempt to approve a (kept pending), the
// latest MaxAttempts only.
func (a *Approval) Failed(at Attempt) {
	a.Attempts = append(a.Attempts, at)
	if n := len(a.Attempts); n > MaxAttempts {
		a.Attempts = slices.Clone(a.Attempts[n-MaxAttempts:])
	}
}

// Decider is who closed an approval and how: the OS user or --by of
// orgsync approve or reject, the status page's authenticated user, or a
// run that no longer wanted any of its changes.
type Decider struct {
	By  string `json:"by"`  // "alice", "ops", "run 20261126T101500.000Z"
	Via string `json:"via"` // "orgsync approve", "status page, basic authentication", "sync"
}

// String is "alice via orgsync approve", "ops via status page (basic
// authentication)".
func (d *Decider) String() string {
	if d == nil {
		return ""
	}
	return d.By + " via " + d.Via
}

// Narrowing is one run's narrowing of an approval: the changes it took out
// and how many were left.
type Narrowing struct {
	Time    time.Time        `json:"time"`
	Run     string           `json:"run"`
	Dropped planjson.Changes `json:"dropped"`
	Left    int              `json:"left"`
}

// ErrNoApproval is returned for an id that names no approval, or none
// still pending where one must be.
var ErrNoApproval = errors.New("no such pending approval")

// idPattern is the shape of an approval id (NewID).
var idPattern = regexp.MustCompile(`^[0-9a-f]{8}$`)

// NewID returns a fresh approval id: 8 hexadecimal digits.
func NewID() string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // never fails (Go 1.24)
	return hex.EncodeToString(b[:])
}

// file is where approval id is kept; claimed is set for the name it has
// while orgsync approve applies it.
func (d *Dir) file(id string, claimed bool) string {
	name := id + ".json"
	if claimed {
		name = id + ".applying.json"
	}
	return filepath.Join(d.path, approvalsDir, name)
}

// SaveApproval writes a, replacing the file of its id atomically.
func (d *Dir) SaveApproval(a *Approval) error {
	if !idPattern.MatchString(a.ID) {
		return fmt.Errorf("approval id %q: want 8 hexadecimal digits", a.ID)
	}
	if err := d.fault("save " + a.ID + " " + a.Status); err != nil {
		return err
	}
	return atomicfile.Write(d.file(a.ID, false), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(approvalFile{ApprovalFormat, a})
	})
}

// Approval reads approval id, whatever its status.
func (d *Dir) Approval(id string) (*Approval, error) {
	if !idPattern.MatchString(id) {
		return nil, fmt.Errorf("%q is not an approval id (8 hexadecimal digits, as orgsync approve lists them)", id)
	}
	a, err := readApproval(d.file(id, false))
	if os.IsNotExist(err) {
		a, err = readApproval(d.file(id, true))
	}
	if os.IsNotExist(err) {
		return nil, fmt.Errorf("approval %s: %w", id, ErrNoApproval)
	}
	return a, err
}

func readApproval(path string) (*Approval, error) {
	b, err := owned.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := approvalFile{Approval: &Approval{}}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	if err := readable(f.FormatVersion, ApprovalFormat); err != nil {
		return nil, fmt.Errorf("approval %s: %w", filepath.Base(path), err)
	}
	return f.Approval, nil
}

// Approvals returns the approvals of organization org (every
// organization's when org is empty) with status (any when empty), oldest
// first; not those being applied (Claimed).
func (d *Dir) Approvals(org, status string) ([]Approval, error) {
	return d.approvals(org, status, "*.json", func(p string) bool { return strings.HasSuffix(p, ".applying.json") })
}

// PendingIDs returns the ids of the pending approvals of the state
// directory at path, oldest first, when it exists and can be read; nil
// otherwise. It never creates the directory (shell completion asks).
func PendingIDs(path string) []string {
	if _, err := os.Stat(path); err != nil { // "" too
		return nil
	}
	d, err := Open(path, Options{})
	if err != nil {
		return nil
	}
	list, err := d.Approvals("", Pending)
	if err != nil {
		return nil
	}
	ids := make([]string, len(list))
	for i, a := range list {
		ids[i] = a.ID
	}
	return ids
}

// Claimed returns organization org's approvals being applied (claimed,
// not closed yet): still held until they are.
func (d *Dir) Claimed(org string) ([]Approval, error) {
	return d.approvals(org, "", "*.applying.json", func(string) bool { return false })
}

// approvals reads the approvals whose files match glob and skip does not
// leave out, of org and with status (empty: any).
func (d *Dir) approvals(org, status, glob string, skip func(path string) bool) ([]Approval, error) {
	paths, err := filepath.Glob(filepath.Join(d.path, approvalsDir, glob))
	if err != nil {
		return nil, err
	}
	var out []Approval
	for _, p := range paths {
		if skip(p) {
			continue
		}
		a, err := readApproval(p)
		if err != nil {
			return nil, err
		}
		if (org == "" || a.Org == org) && (status == "" || a.Status == status) {
			out = append(out, *a)
		}
	}
	slices.SortFunc(out, func(a, b Approval) int { return a.Created.Compare(b.Created) })
	return out, nil
}

// Resolved returns the approvals closed (approved, rejected, dropped) or
// narrowed at or after since, the latest first.
func (d *Dir) Resolved(since time.Time) ([]Approval, error) {
	all, err := d.Approvals("", "")
	if err != nil {
		return nil, err
	}
	out := slices.DeleteFunc(all, func(a Approval) bool { return a.lastDecided().Before(since) })
	slices.SortFunc(out, func(a, b Approval) int { return b.lastDecided().Compare(a.lastDecided()) })
	return out, nil
}

// lastDecided is when the approval was closed, or last narrowed (zero when
// neither).
func (a *Approval) lastDecided() time.Time {
	t := a.Closed
	if n := len(a.Narrowed); n > 0 && a.Narrowed[n-1].Time.After(t) {
		t = a.Narrowed[n-1].Time
	}
	return t
}

// Close records a claimed or pending approval's end with status, decided
// by who.
func (d *Dir) Close(a *Approval, status string, who Decider) error {
	a.Status, a.Closed, a.Decided = status, time.Now().UTC(), &who
	if err := d.SaveApproval(a); err != nil {
		return err
	}
	return d.remove(d.file(a.ID, true))
}

// NoteAttempt records a failed attempt to approve approval id in it, when
// it is pending and not being applied, and reports whether it did: a
// decision on it (Decide), so that no other orgsync decides on it
// meanwhile.
func (d *Dir) NoteAttempt(id string, at Attempt) (bool, error) {
	_, err := d.Decide(id, NewClaimant(at.Run, at.Decided, nil), func(a *Approval) bool {
		a.Failed(at)
		return true
	})
	if errors.Is(err, ErrNoApproval) || errors.Is(err, ErrBeingApplied) {
		return false, nil // closed, or being applied
	}
	return err == nil, err
}

// Decide takes one decision on pending approval id that sends nothing (a
// run narrowing it, a failed attempt noted), as c, under its claim
// (Claim): change is given the approval as it is once claimed (another
// orgsync may have decided on it since the caller read it) and changes
// it, reporting whether it did; the approval is then saved (closed, when
// change closed it), and returned as it is after. ErrNoApproval says
// that it is no longer pending, ErrBeingApplied that another orgsync
// holds it still: change was not called.
func (d *Dir) Decide(id string, c Claimant, change func(a *Approval) bool) (*Approval, error) {
	a, ap, _, err := d.Claim(id, c)
	if err != nil {
		return nil, err
	}
	switch {
	case !change(a):
		err = ap.Pending(a, false)
	case a.Status == Pending:
		err = ap.Pending(a, true)
	default:
		who := Decider{By: "run " + c.Run, Via: c.By.Via}
		if a.Decided != nil {
			who = *a.Decided
		}
		err = ap.Close(a, a.Status, who)
	}
	if err != nil {
		ap.Release() // recovered by the next orgsync that touches it
		return nil, err
	}
	return a, ap.Finish()
}
