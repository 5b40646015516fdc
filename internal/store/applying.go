package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/util/filelock"
)

// An approval is applied under a claim, journaled so that an apply
// interrupted by a kill, a crash or a full disk can be recovered:
//
//  1. the journal (approvals/ID.journal.jsonl) is made, exclusively, and
//     locked for as long as the claimer lives (the system releases the
//     lock when the process ends, however it ends); its first line names
//     the claimer and what it means to send;
//  2. the approval's file is renamed ID.applying.json: no other orgsync
//     takes it, and every run holds its changes;
//  3. before each request the journal says what it sends, after it what
//     the service answered; nothing is sent that the journal could not
//     note first;
//  4. the approval is closed (or put back pending), the run recorded,
//     and only then the journal removed (Finish).
//
// A journal left behind whose lock is free is an interrupted apply, which
// Recover finishes from what the journal says the service confirmed.

// Claimant is who claims an approval to apply it.
type Claimant struct {
	Run   string    `json:"run"` // the run that applies it
	By    Decider   `json:"by"`
	PID   int       `json:"pid"`
	Host  string    `json:"host"`
	Since time.Time `json:"since"`
	// Sends are the keys of the changes the apply means to send (those
	// the sources still ask for).
	Sends []string `json:"sends,omitempty"`
}

// NewClaimant is this process claiming an approval for run, decided by
// by, to send the changes of keys.
func NewClaimant(run string, by Decider, keys []string) Claimant {
	host, _ := os.Hostname()
	return Claimant{Run: run, By: by, PID: os.Getpid(), Host: host, Since: time.Now().UTC(), Sends: keys}
}

// String says who, for an error: "run R of alice via orgsync approve
// (pid 12 on host h) since T".
func (c *Claimant) String() string {
	return fmt.Sprintf("run %s of %s (pid %d on %s) since %s", c.Run, c.By.String(), c.PID, c.Host, c.Since.Format(time.RFC3339))
}

// journalLine is one line of an apply's journal: the claim (the first
// line, with the journal's FormatVersion), a request about to be sent (N,
// Sending) or its answer (N, Answered: Failed the keys the service
// refused, Unknown when it gave no answer that says).
type journalLine struct {
	FormatVersion int       `json:"formatVersion,omitempty"`
	Claim         *Claimant `json:"claim,omitempty"`
	N             int       `json:"n,omitempty"`
	Sending       []string  `json:"sending,omitempty"`
	Answered      bool      `json:"answered,omitempty"`
	Failed        []string  `json:"failed,omitempty"`
	Unknown       bool      `json:"unknown,omitempty"`
}

// ErrBeingApplied is the error of claiming an approval another orgsync
// is applying.
var ErrBeingApplied = errors.New("is being applied by another orgsync")

// journalPath is where approval id's apply is journaled.
func (d *Dir) journalPath(id string) string {
	return filepath.Join(d.path, approvalsDir, id+".journal.jsonl")
}

// Applying is a claimed approval, being applied under its journal.
type Applying struct {
	d     *Dir
	id    string
	f     *os.File // the journal, locked
	path  string   // where it is
	n     int      // requests journaled
	sent  int      // of which noted before they were sent
	claim Claimant
}

// Claim takes pending approval id for applying it, or for another
// decision on it, as c: one claimer only gets it, however many try at
// once, and it stays held by every run until it is closed
// (Applying.Close) or put back (Applying.Pending), and recorded
// (Finish). The approval returned is read once the claim is taken:
// another orgsync may have decided on it since the caller read it (then
// it is no longer pending: ErrNoApproval). While another orgsync holds a
// claim to decide on it without sending anything (a run narrowing it, a
// rejection, a failed attempt noted), which takes moments, Claim waits
// for it, up to ClaimWait; a claim to apply it is not waited for
// (ErrBeingApplied, with who). An interrupted apply of it is recovered
// first (Recover, whose report is returned, nil when there was none).
func (d *Dir) Claim(id string, c Claimant) (*Approval, *Applying, *Recovery, error) {
	var rec *Recovery
	deadline := time.Now().Add(ClaimWait)
	for {
		a, ap, r, err := d.claim(id, c)
		if r != nil {
			rec = r
		}
		if !errors.Is(err, ErrBeingApplied) || d.applying(id) || time.Now().After(deadline) {
			return a, ap, rec, err
		}
		time.Sleep(claimPoll)
	}
}

// ClaimWait bounds how long Claim waits for another orgsync's decision
// on the same approval; claimPoll is how often it tries meanwhile.
const (
	ClaimWait = 5 * time.Second
	claimPoll = 10 * time.Millisecond
)

// claim is one try of Claim.
func (d *Dir) claim(id string, c Claimant) (*Approval, *Applying, *Recovery, error) {
	rec, err := d.Recover(id)
	if err != nil {
		return nil, nil, rec, err
	}
	a, err := d.Approval(id)
	if err != nil {
		return nil, nil, rec, err
	}
	if a.Status != Pending {
		return nil, nil, rec, fmt.Errorf("approval %s is %s already: %w", id, a.Status, ErrNoApproval)
	}
	ap, err := d.begin(id, c)
	if err != nil {
		return nil, nil, rec, err
	}
	if a, err = readApproval(d.file(id, true)); err == nil && a.Status != Pending {
		err = fmt.Errorf("approval %s is %s already: %w", id, a.Status, ErrNoApproval)
	}
	if err != nil { // decided by another orgsync between the read and the claim
		if exists(d.file(id, true)) {
			_ = os.Rename(d.file(id, true), d.file(id, false))
		}
		return nil, nil, rec, ap.abandon(err)
	}
	return a, ap, rec, nil
}

// applying reports whether the claim on approval id is an apply's (its
// journal names changes to send): one that may take minutes.
func (d *Dir) applying(id string) bool {
	j, err := readJournal(d.journalPath(id))
	return err == nil && len(j.claim.Sends) > 0
}

// begin makes approval id's journal, locked, with c's claim as its first
// line (written beside, then linked into place: no one ever sees it
// without its claim or unlocked while its claimer lives, and only one
// claimer makes it), then claims the approval's file.
func (d *Dir) begin(id string, c Claimant) (*Applying, error) {
	path := d.journalPath(id)
	if err := d.fault("create " + filepath.Base(path)); err != nil {
		return nil, fmt.Errorf("approval %s: its journal cannot be made (nothing sent): %w", id, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, fmt.Errorf("approval %s: its journal cannot be made (nothing sent): %w", id, err)
	}
	ap := &Applying{d: d, id: id, f: f, path: f.Name(), claim: c}
	if err := filelock.TryLock(f); err != nil {
		return nil, ap.abandon(fmt.Errorf("approval %s: locking its journal: %w", id, err))
	}
	if err := ap.write(journalLine{FormatVersion: JournalFormat, Claim: &c}); err != nil {
		return nil, ap.abandon(err)
	}
	if err := os.Link(f.Name(), path); err != nil {
		err = fmt.Errorf("approval %s: its journal cannot be made (nothing sent): %w", id, err)
		if errors.Is(err, os.ErrExist) {
			err = fmt.Errorf("approval %s %w", id, ErrBeingApplied)
		}
		return nil, ap.abandon(err)
	}
	_ = os.Remove(f.Name())
	ap.path = path
	if err := d.fault("claim " + id); err != nil {
		return nil, ap.abandon(err)
	}
	if err := os.Rename(d.file(id, false), d.file(id, true)); err != nil {
		return nil, ap.abandon(fmt.Errorf("approval %s %w", id, ErrBeingApplied))
	}
	return ap, nil
}

// abandon removes a journal under which nothing was claimed nor sent,
// and returns err.
func (ap *Applying) abandon(err error) error {
	_ = os.Remove(ap.path)
	ap.f.Close()
	return err
}

// write appends l to the journal, synced: it is there after a crash.
func (ap *Applying) write(l journalLine) error {
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	if err := ap.d.fault("journal " + ap.id); err != nil {
		return fmt.Errorf("approval %s: its journal cannot be written: %w", ap.id, err)
	}
	if _, err := ap.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("approval %s: its journal cannot be written: %w", ap.id, err)
	}
	if err := ap.f.Sync(); err != nil {
		return fmt.Errorf("approval %s: its journal cannot be written: %w", ap.id, err)
	}
	return nil
}

// Sending notes that a request of the changes of keys is about to be
// sent, and returns its number; an error means it must not be sent.
func (ap *Applying) Sending(keys []string) (int, error) {
	ap.n++
	if err := ap.write(journalLine{N: ap.n, Sending: keys}); err != nil {
		return ap.n, err
	}
	ap.sent++
	return ap.n, nil
}

// Sent counts the requests noted as sent (Sending).
func (ap *Applying) Sent() int { return ap.sent }

// Answered notes the service's answer to request n: failed are the keys
// it refused; unknown says that no answer tells what it applied.
func (ap *Applying) Answered(n int, failed []string, unknown bool) error {
	return ap.write(journalLine{N: n, Answered: true, Failed: failed, Unknown: unknown})
}

// Close closes the claimed approval a with status (approved, dropped,
// rejected), decided by who. The journal stays until Finish.
func (ap *Applying) Close(a *Approval, status string, who Decider) error {
	return ap.d.Close(a, status, who)
}

// Pending puts the claimed approval a back as pending, saved as it is
// now when save is set (else its file is renamed back, which needs no
// room on the disk). The journal stays until Finish.
func (ap *Applying) Pending(a *Approval, save bool) error {
	if !save {
		if err := ap.d.fault("unclaim " + a.ID); err != nil {
			return err
		}
		if err := os.Rename(ap.d.file(a.ID, true), ap.d.file(a.ID, false)); err != nil {
			return fmt.Errorf("approval %s: putting it back as pending: %w", a.ID, err)
		}
		return nil
	}
	if err := ap.d.SaveApproval(a); err != nil {
		return err
	}
	return ap.d.remove(ap.d.file(a.ID, true))
}

// Finish removes the journal once the apply is closed and recorded, and
// releases its lock. (The lock is released first: a file open cannot be
// removed on Windows. Whoever takes the lock in between finds the
// approval closed and recorded, and removes the journal too.)
func (ap *Applying) Finish() error {
	ap.Release()
	return ap.d.remove(ap.path)
}

// Release releases the journal's lock, leaving the journal as it is: an
// apply not finished is then recovered by the next orgsync that touches
// the approval.
func (ap *Applying) Release() { ap.f.Close() }

// remove removes the file at path (none there is no error).
func (d *Dir) remove(path string) error {
	if err := d.fault("remove " + filepath.Base(path)); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// journal is what an apply's journal says.
type journal struct {
	claim Claimant
	// confirmed, failed and unknown are the keys (lower case) the service
	// applied, refused, or answered nothing that tells.
	confirmed, failed, unknown map[string]bool
}

// readJournal reads the journal at path. A torn last line (a crash while
// writing it) is passed over.
func readJournal(path string) (*journal, error) {
	j := &journal{confirmed: map[string]bool{}, failed: map[string]bool{}, unknown: map[string]bool{}}
	sending := map[int][]string{}
	claimed := false
	var later error
	err := readLines(path, func(line []byte) {
		var l journalLine
		if json.Unmarshal(line, &l) != nil {
			return
		}
		switch {
		case l.Claim != nil:
			j.claim, claimed, later = *l.Claim, true, readable(l.FormatVersion, JournalFormat)
		case l.Answered:
			j.answer(sending[l.N], l)
			delete(sending, l.N)
		default:
			sending[l.N] = l.Sending
		}
	})
	if err == nil && later != nil {
		err = fmt.Errorf("%s: %w", filepath.Base(path), later)
	}
	if err != nil {
		return nil, err
	}
	for _, keys := range sending { // sent, never answered
		for _, k := range keys {
			j.unknown[strings.ToLower(k)] = true
		}
	}
	for k := range j.unknown {
		delete(j.confirmed, k)
	}
	for k := range j.failed {
		delete(j.confirmed, k)
	}
	if !claimed {
		return nil, fmt.Errorf("%s: no claim: not a journal of orgsync's", filepath.Base(path))
	}
	return j, nil
}

// answer notes the answer l to a request of keys.
func (j *journal) answer(keys []string, l journalLine) {
	failed := map[string]bool{}
	for _, k := range l.Failed {
		failed[strings.ToLower(k)] = true
	}
	for _, k := range keys {
		k = strings.ToLower(k)
		switch {
		case l.Unknown:
			j.unknown[k] = true
		case failed[k]:
			j.failed[k] = true
		default:
			j.confirmed[k] = true
		}
	}
}
