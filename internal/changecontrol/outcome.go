package changecontrol

import (
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/changecontrol/notify"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/reconcile"
)

// The modes of the run records: the command whose outcome each records.
const (
	ModeSync     = "sync"      // sync, and each run of the daemon
	ModeTestOnly = "test-only" // sync --test-only
	ModeApply    = "apply"     // apply of a saved plan
	ModeApprove  = "approve"   // orgsync approve, or Approve on the status page
	ModeReject   = "reject"    // orgsync reject, or Reject on the status page
	ModeResend   = "resend-invite"
	ModeRevoke   = "revoke-invite"
)

// outcome is what one organization's outcome of a command leaves: its
// run record, its history entries and its notification (nil: nothing to
// tell); changed says that it changed the organization (changes reached
// the service) or an approval (a rejection).
type outcome struct {
	rec     *store.Run
	entries []store.Entry
	event   *notify.Event
	changed bool
}

// end is the one path every outcome goes through, success or failure,
// whatever the command (a run, an approval's release, a rejection, an
// invite resent or revoked): the history entries and the run record in
// the state directory, the report's rows, the runs the daemon's status
// page and metrics take (TakeRuns), and one notification. A record the
// state directory cannot take is logged and notified in place of the
// outcome's own notification (a failure in phase record); when the
// outcome changed something, the command ends with exit 3 (Unrecorded).
func (c *Control) end(o outcome) (recorded bool) {
	err := c.store(o.rec, o.entries)
	if err != nil {
		c.log.Error("the outcome could not be recorded in the state directory", zap.String("org", o.rec.Org),
			zap.String("mode", o.rec.Mode), zap.Error(err))
		if o.changed {
			c.mu.Lock()
			c.unrecorded = true
			c.mu.Unlock()
		}
		o.event = unrecordedEvent(o.rec, o.event, o.changed, err)
	}
	c.mu.Lock()
	c.done.Runs = append(c.done.Runs, *o.rec)
	c.heard++
	var kept error
	if c.report {
		kept = c.done.AddChanges(o.entries)
	}
	c.mu.Unlock()
	if kept != nil {
		c.log.Error("the changes could not be kept for the report: it will lack them", zap.Error(kept))
	}
	if o.event != nil {
		c.notify(o.event)
	}
	return err == nil
}

// FailedCommand records and tells, as end does, the failure of the
// command (For) for organizations orgs before it could run (err, marked
// with its phase: PhaseOf): a saved plan refused, an organization that
// could not be opened.
func (c *Control) FailedCommand(orgs []*config.NamedTarget, err error) {
	c.Failed(orgs, run.Real, err)
}

// noteAttempt records in approval id, when it is still pending, the
// failed attempt of by to approve it (res), and logs it.
func (c *Control) noteAttempt(id string, by store.Decider, res *run.Result) {
	log := c.log.With(zap.String("approval", id), zap.String("org", res.Org.Name), zap.Stringer("by", &by),
		zap.String("phase", res.Phase), zap.Error(res.Err))
	dir := c.StateDir()
	if dir == nil {
		log.Error("approving failed")
		return
	}
	at := store.Attempt{Time: time.Now().UTC(), Run: res.Run, Decided: by, Phase: res.Phase, Error: res.Err.Error()}
	switch kept, err := dir.NoteAttempt(id, at); {
	case err != nil:
		log.Error("approving failed, and the attempt could not be noted in the approval", zap.NamedError("noting", err))
	case kept:
		log.Error("approving failed: the approval stays pending, with this attempt noted in it")
	default:
		log.Error("approving failed")
	}
}

// Reject discards pending approval id, decided by by, and records it as
// every outcome is (end): a run record of mode reject, a history entry
// (rejected) for each of its changes, a notification. A rejection that
// cannot be written is recorded as failed (phase gate); an id that names
// no pending approval is only an error.
func (c *Control) Reject(id string, by store.Decider) (*store.Approval, error) {
	dir := c.StateDir()
	if dir == nil {
		return nil, ErrNoStateDir
	}
	start := time.Now()
	a, ap, rec, err := dir.Claim(id, store.NewClaimant(run.RunID(start), by, nil))
	c.recovered(rec)
	if err != nil {
		return nil, err
	}
	err = ap.Close(a, store.Rejected, by)
	if recorded := c.decided(a, start, err); err == nil && recorded {
		err = ap.Finish()
	} else {
		ap.Release() // the next orgsync that touches it finishes it from its journal
	}
	return a, err
}

// recovered tells what the recovery of an interrupted apply did (nothing
// when r is nil): logged, and notified as the failure it was.
func (c *Control) recovered(r *store.Recovery) {
	if r == nil {
		return
	}
	a := r.Approval
	c.log.Warn(r.String(), zap.String("approval", a.ID), zap.String("org", a.Org), zap.String("run", r.Claim.Run))
	ev := &notify.Event{Kind: notify.Failure, Org: a.Org, Run: r.Claim.Run, Time: time.Now().UTC(), Phase: run.PhaseApply, Summary: r.String(),
		Error: "interrupted while being applied (kill, crash or a full disk)"}
	if a.Status == store.Pending {
		ev.Approval = a.ID
	}
	c.notify(ev)
}

// decided records the rejection of a, started at start, failed with err,
// and reports whether it recorded it.
func (c *Control) decided(a *store.Approval, start time.Time, err error) bool {
	cfg := c.config()
	t, terr := run.Target(cfg, "", a.Org)
	if terr != nil { // an approval of an organization the configuration no longer has
		t = &config.NamedTarget{Name: a.Org}
	}
	rec := &store.Run{ID: run.RunID(start), Org: t.Name, Start: start.UTC(), End: time.Now().UTC(), Mode: ModeReject,
		Result: store.RunSuccess, Approval: a.ID}
	ev := &notify.Event{Kind: notify.Rejected, Org: t.Name, Run: rec.ID, Time: rec.End, Approval: a.ID}
	if err != nil {
		rec.Result, rec.Phase, rec.Error = store.RunFailure, run.PhaseGate, "rejecting approval "+a.ID+": "+err.Error()
		ev.Kind, ev.Phase, ev.Error = notify.Failure, rec.Phase, rec.Error
		ev.Summary = "rejecting approval " + a.ID + " failed: it could not be written"
		return c.end(outcome{rec: rec, event: ev})
	}
	ev.Summary = "approval " + a.ID + " rejected by " + a.Decided.String() + ": " + rejectedText(len(a.Changes))
	ev.Changes, ev.More = firstChanges(a.Changes)
	entries := make([]store.Entry, len(a.Changes))
	for i := range a.Changes {
		ch := &a.Changes[i]
		entries[i] = store.Entry{Run: rec.ID, Time: rec.End, Org: t.Name, User: ch.Key(), Kind: string(ch.Kind), Steps: store.Steps(ch),
			Result: store.ResultRejected, Reason: "held for approval (" + a.Reason + "); rejected", Approval: a.ID, DecidedBy: a.Decided.String()}
	}
	return c.end(outcome{rec: rec, entries: entries, event: ev, changed: true})
}

// rejectedText says what becomes of n rejected changes.
func rejectedText(n int) string {
	if n == 1 {
		return "its change is discarded; if the sources still ask for it, the next sync holds it again"
	}
	return "its changes are discarded; those the sources still ask for, the next sync holds again"
}

// Invited records and tells, as end does, an invite of organization t
// resent or revoked (kind, one of reconcile.KindResendInvite and
// KindRevokeInvite) outside a run, started at start: applied, or failed
// with err (marked with its phase; PhaseApply when it is not).
func (c *Control) Invited(t *config.NamedTarget, kind reconcile.Kind, email string, start time.Time, err error) {
	ch := reconcile.Change{Kind: kind, User: reconcile.User{Type: reconcile.VendorID, Email: email}}
	r := &run.Result{Org: t, Mode: run.Real, Run: run.RunID(start), Start: start, Elapsed: time.Since(start),
		Plan: &reconcile.Plan{Changes: []reconcile.Change{ch}}}
	if err != nil {
		r.Err, r.Phase = err, run.PhaseOr(err, run.PhaseApply)
	} else {
		r.Applied = &reconcile.Result{Invites: 1}
		r.ByKind = map[string]int{string(kind): 1}
	}
	rec, entries := record(r, nil, store.Settings{}, c.command)
	for i := range entries {
		entries[i].Reason = "asked for with orgsync invites"
	}
	c.end(outcome{rec: rec, entries: entries, event: runEvent(r, c.config().Notify.OnChanges), changed: sent(r)})
}
