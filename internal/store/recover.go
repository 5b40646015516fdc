package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/util/filelock"
	"github.com/orgsync/orgsync/internal/util/owned"
	"github.com/orgsync/orgsync/internal/util/plural"
	"github.com/orgsync/orgsync/reconcile"
)

// ModeApprove is the mode of the run record of an approval's apply.
const ModeApprove = "approve"

// Recovery is what recovering an interrupted apply of an approval did.
type Recovery struct {
	// Approval is the approval as the recovery left it: approved (every
	// change the apply meant to send confirmed by the service), or
	// pending again with the changes not confirmed, the interruption
	// noted in its Attempts.
	Approval *Approval
	Claim    Claimant // the interrupted apply
	// Confirmed, Failed and Unknown count its changes the service
	// applied, refused, or answered nothing that tells (they stay held).
	Confirmed, Failed, Unknown int
	// Recorded is set when the history entries and the run record of
	// the interrupted apply were missing and the recovery wrote them.
	Recorded bool
}

// String says what the recovery did, in a sentence.
func (r *Recovery) String() string {
	s := fmt.Sprintf("approval %s was interrupted while being applied (%s): %s the service confirmed", r.Approval.ID, r.Claim.String(),
		plural.Of(r.Confirmed, "change", "changes"))
	if r.Recorded {
		s += ", now recorded in the history"
	}
	if r.Failed+r.Unknown > 0 {
		s += fmt.Sprintf("; %d refused, %d without an answer", r.Failed, r.Unknown)
	}
	if r.Approval.Status == Pending {
		return s + fmt.Sprintf("; it is pending again with %s", plural.Of(len(r.Approval.Changes), "change", "changes"))
	}
	return s + "; it is " + r.Approval.Status
}

// Recover finishes an interrupted apply of approval id, when there is
// one (its journal left, its lock free: the claimer is gone): what the
// service confirmed is recorded (history entries and a run record, when
// the interrupted apply could not write them), and the approval ends
// approved (all it meant to send confirmed) or pending again with the
// rest. It returns nil when there was nothing to recover, and
// ErrBeingApplied, with who, while the claimer is alive.
func (d *Dir) Recover(id string) (*Recovery, error) {
	path := d.journalPath(id)
	f, err := owned.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("approval %s: its journal: %w", id, err)
	}
	defer f.Close() // holding the lock until the recovery is done
	if err := filelock.TryLock(f); errors.Is(err, filelock.ErrLocked) {
		who := "another orgsync"
		if j, err := readJournal(path); err == nil {
			who = j.claim.String()
		}
		return nil, fmt.Errorf("approval %s %w: %s", id, ErrBeingApplied, who)
	} else if err != nil {
		return nil, fmt.Errorf("approval %s: locking its journal: %w", id, err)
	}
	j, err := readJournal(path)
	claimed := exists(d.file(id, true))
	if err != nil && !claimed { // made, never claimed: nothing was sent
		return nil, d.remove(path)
	}
	if err != nil {
		return nil, fmt.Errorf("approval %s: %w", id, err)
	}
	if !claimed && len(j.claim.Sends)+len(j.confirmed)+len(j.failed)+len(j.unknown) == 0 {
		return nil, d.remove(path) // a decision that sent nothing, and ended: only its journal was left
	}
	a, err := d.Approval(id)
	if err != nil {
		return nil, err
	}
	r := &Recovery{Approval: a, Claim: j.claim}
	if err := d.recover(r, j, claimed); err != nil {
		return r, fmt.Errorf("approval %s: recovering its interrupted apply: %w", id, err)
	}
	if err := d.putBack(id); err != nil {
		return r, err
	}
	return r, d.remove(path)
}

// putBack ends the claim on approval id's file: the claimed file goes
// once the approval's own file is written, else it is renamed back (a
// claimer that found the approval decided, and stopped).
func (d *Dir) putBack(id string) error {
	if !exists(d.file(id, false)) && exists(d.file(id, true)) {
		return os.Rename(d.file(id, true), d.file(id, false))
	}
	return d.remove(d.file(id, true))
}

// RecoverAll recovers every interrupted apply (Recover) of an approval
// of organization org (of any when empty); those whose claimer is alive
// are left to it.
func (d *Dir) RecoverAll(org string) ([]Recovery, error) {
	paths, err := filepath.Glob(filepath.Join(d.path, approvalsDir, "*.journal.jsonl"))
	if err != nil {
		return nil, err
	}
	var out []Recovery
	errs := []error{d.removeStartedJournals()}
	for _, p := range paths {
		id := strings.TrimSuffix(filepath.Base(p), ".journal.jsonl")
		if a, err := d.Approval(id); org != "" && err == nil && a.Org != org {
			continue
		}
		r, err := d.Recover(id)
		switch {
		case errors.Is(err, ErrBeingApplied):
		case err != nil:
			errs = append(errs, err)
		}
		if r != nil {
			out = append(out, *r)
		}
	}
	return out, errors.Join(errs...)
}

// removeStartedJournals removes the journals a claimer started and never
// put in place (it died before: nothing was claimed nor sent).
func (d *Dir) removeStartedJournals() error {
	paths, err := filepath.Glob(filepath.Join(d.path, approvalsDir, ".*.journal.jsonl.*"))
	if err != nil {
		return err
	}
	for _, p := range paths {
		f, err := owned.Open(p)
		if err != nil {
			continue
		}
		if filelock.TryLock(f) == nil {
			_ = d.remove(p)
		}
		f.Close()
	}
	return nil
}

// recover records what the journal j says of r's approval and ends it:
// claimed says that its file is still claimed.
func (d *Dir) recover(r *Recovery, j *journal, claimed bool) error {
	a := r.Approval
	var confirmed, rest []reconcile.Change
	for _, c := range a.Changes {
		k := strings.ToLower(c.Key())
		switch {
		case j.confirmed[k]:
			r.Confirmed++
			confirmed = append(confirmed, c)
			continue
		case j.failed[k]:
			r.Failed++
		case j.unknown[k]:
			r.Unknown++
		}
		rest = append(rest, c)
	}
	recorded, err := d.recorded(a, j.claim)
	if err != nil {
		return err
	}
	if !recorded && (r.Confirmed+r.Failed+r.Unknown > 0) {
		if err := d.recordRecovered(r, j); err != nil {
			return err
		}
		r.Recorded = true
	}
	switch {
	case a.Status != Pending: // closed by the apply; only its record was missing
		return nil
	case len(j.claim.Sends) > 0 && allConfirmed(j):
		return d.Close(a, Approved, j.claim.By)
	case r.Confirmed+r.Failed+r.Unknown == 0 && !claimed: // nothing sent, pending again
		return nil
	case r.Confirmed+r.Failed+r.Unknown == 0: // nothing sent: pending as it was
		return os.Rename(d.file(a.ID, true), d.file(a.ID, false))
	}
	a.Changes = rest
	a.Updated = time.Now().UTC()
	a.Failed(Attempt{Time: a.Updated, Run: j.claim.Run, Decided: j.claim.By, Phase: "apply",
		Error: fmt.Sprintf("interrupted while being applied (kill, crash or a full disk): %s confirmed by the service and recorded, %s left pending",
			plural.Of(r.Confirmed, "change", "changes"), plural.Of(len(rest), "change", "changes"))})
	return d.SaveApproval(a)
}

// allConfirmed reports whether the service confirmed every change the
// apply of journal j meant to send (true when it meant to send none).
func allConfirmed(j *journal) bool {
	return !slices.ContainsFunc(j.claim.Sends, func(k string) bool { return !j.confirmed[strings.ToLower(k)] })
}

// recorded reports whether the history has entries of the apply of a by
// claim's run.
func (d *Dir) recorded(a *Approval, claim Claimant) (bool, error) {
	entries, err := d.History(Filter{Org: a.Org, Since: claim.Since})
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(entries, func(e Entry) bool { return e.Run == claim.Run && e.Approval == a.ID }), nil
}

// recordRecovered writes the history entries of r's interrupted apply
// (applied, failed, or unknown for a change sent without an answer) and its
// run record, failed: it was interrupted.
func (d *Dir) recordRecovered(r *Recovery, j *journal) error {
	a, now := r.Approval, time.Now().UTC()
	rec := &Run{ID: j.claim.Run, Org: a.Org, Start: j.claim.Since, End: now, Mode: ModeApprove, Result: RunFailure, Phase: "record",
		Approval: a.ID, Changes: map[string]int{}, Failures: r.Failed}
	var entries []Entry
	for i := range a.Changes {
		c := &a.Changes[i]
		k := strings.ToLower(c.Key())
		e := Entry{Run: j.claim.Run, Time: now, Org: a.Org, User: c.Key(), Kind: string(c.Kind), Steps: Steps(c),
			Reason: "held for approval (" + a.Reason + "); recovered after its apply was interrupted", Approval: a.ID, DecidedBy: j.claim.By.String()}
		switch {
		case j.confirmed[k]:
			e.Result = ResultApplied
			rec.Changes[e.Kind]++
		case j.failed[k]:
			e.Result, e.Message = ResultFailed, "refused by the service (the log of run "+j.claim.Run+" says why)"
		case j.unknown[k]:
			e.Result, e.Message, rec.Phase = ResultUnknown, "sent, no answer: the service may have applied it (the next run's read tells)", "apply"
		default:
			continue
		}
		entries = append(entries, e)
	}
	rec.Error = fmt.Sprintf("interrupted while applying approval %s (kill, crash or a full disk), and recovered at %s: %s confirmed by the service",
		a.ID, now.Format(time.RFC3339), plural.Of(r.Confirmed, "change", "changes"))
	if err := d.AppendHistory(entries); err != nil {
		return err
	}
	return d.AppendRun(rec)
}

// exists reports whether there is a file at path.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
