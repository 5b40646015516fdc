package incremental

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/orgsync/orgsync/internal/store/snapshot"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umwire"
)

// Sending is a real run sending its plan: it holds the organization's
// snapshot lock, and records what the service confirmed.
type Sending struct {
	run  *Run
	lock *snapshot.Lock
	// stale is set when another run replaced the snapshot since this one
	// began: nothing is recorded, and the sending marker stays.
	stale      bool
	switchable bool
	marked     bool // the sending marker was written

	mu      sync.Mutex
	journal journal
	contra  *Contradiction
	cancel  context.CancelFunc
}

// Send starts sending plan: it takes the organization's snapshot lock
// (another run holding it is an error: nothing may be sent) and, when the
// plan sends anything, writes the sending marker first, so that a run
// that stops before recording leaves the next one to read fully. A
// Sending must be finished (Finish) once the plan is sent. switchable
// says that the run can read fully and plan again when an answer
// contradicts the snapshot (see Wrap); a run that cannot (it applies an
// approval's changes) leaves the next run to read fully instead.
func (r *Run) Send(plan *reconcile.Plan, switchable bool) (*Sending, error) {
	note := fmt.Sprintf("pid %d, since %s", os.Getpid(), r.s.Clock().UTC().Format(time.RFC3339))
	lock, err := r.s.Store.Lock(r.s.Org, note)
	if err != nil {
		return nil, fmt.Errorf("the snapshot of %s: %w: this run sends nothing (run one sync of an organization at a time)", r.s.Org, err)
	}
	s := &Sending{run: r, lock: lock, switchable: switchable}
	if stamp, err := r.s.Store.Stamp(r.s.Org); err != nil || stamp != r.stamp {
		s.stale = true
	}
	if plan.Empty() && len(plan.InviteGroups) == 0 {
		return s, nil
	}
	if err := r.s.Store.MarkSending(r.s.Org, "run of "+note); err != nil {
		lock.Unlock()
		return nil, fmt.Errorf("the snapshot's sending marker cannot be written (%w): this run sends nothing; check state.dir", err)
	}
	s.marked = true
	return s, nil
}

// Contradiction is an answer that shows the snapshot wrong.
type Contradiction struct {
	Target  string // the entry's user key or user group
	Code    string // the service's errorCode
	Message string
}

func (c *Contradiction) String() string {
	return fmt.Sprintf("the service answered %s for %s (%s): %s", c.Code, c.Target, c.Message, contradictions[c.Code])
}

// contradictions are the answers (errorCode) to an entry planned from the
// snapshot that show the snapshot wrong, with what they show.
var contradictions = map[string]string{
	umwire.ErrUserNonexistent:   "a user the snapshot has is not in the organization",
	umwire.ErrUserExists:        "a user the snapshot does not have exists",
	umwire.ErrUserInvited:       "an invite the snapshot does not have is pending",
	umwire.ErrGroupNotFound:     "a group the snapshot has does not exist",
	"error.usergroup.not_found": "a user group the snapshot has does not exist",
}

// Wrap returns the context and the Sender to apply plan with: next
// behind a recorder of what the service confirmed. When the plan was made
// from the snapshot, the first answer that contradicts the snapshot is
// kept (Contradiction); in a switchable run its user creates are sent
// strictly (they fail on a user that exists, instead of updating it),
// and that answer cancels the context: the run stops sending, and once
// the Sending is finished (which records the doubt) plans again from a
// full read (Run.Switch).
func (s *Sending) Wrap(ctx context.Context, next reconcile.Sender, plan *reconcile.Plan) (context.Context, reconcile.Sender) {
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	if s.cancel != nil {
		s.cancel() // the context of an earlier Wrap, done with
	}
	s.cancel = cancel
	s.mu.Unlock()
	rec := &recorder{s: s, next: next, fromSnapshot: s.run.kind == Incremental}
	if s.switchable && rec.fromSnapshot {
		rec.strict = map[string]bool{}
		for i := range plan.Changes {
			if plan.Changes[i].Kind == reconcile.KindCreate {
				rec.strict[plan.Changes[i].Key()] = true
			}
		}
	}
	return ctx, rec
}

// Contradiction is the answer that stopped the sending, nil when none did.
func (s *Sending) Contradiction() *Contradiction {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.contra
}

// Finish records what was sent and releases the lock: the snapshot with
// the confirmed changes is saved (saved), which removes the sending
// marker. A request that had no answer makes the next run read fully
// (the snapshot says why); a snapshot another run replaced meanwhile is
// left as it is, with the marker when this run sent anything, so that the
// next run reads fully. An incremental run that changed nothing saves
// nothing. The error says what could not be recorded: the next run reads
// fully then, too.
func (s *Sending) Finish() (saved bool, err error) {
	defer s.lock.Unlock()
	r := s.run
	s.mu.Lock()
	j, contra := s.journal, s.contra
	if s.cancel != nil {
		s.cancel()
	}
	s.mu.Unlock()
	switch {
	case s.stale && s.marked:
		return false, errors.New("another run replaced the snapshot while this one planned: not recorded; the next run reads fully")
	case s.stale:
		return false, nil // nothing sent; the other run's snapshot stands
	case j.empty() && contra == nil && r.kind == Incremental:
		return false, r.s.Store.Unmark(r.s.Org)
	}
	now := r.s.Clock().UTC()
	j.applyTo(r.snap, now)
	r.snap.Saved = now
	switch {
	case contra != nil:
		r.snap.Doubt = "an answer showed the snapshot wrong: " + contra.String()
	case len(j.unsure) > 0:
		r.snap.Doubt = fmt.Sprintf("the run of %s had no answer for %s: the next run reads fully", now.Format(time.RFC3339), unsureList(j.unsure))
	}
	if err := r.s.Store.Save(r.s.Org, r.snap); err != nil {
		return false, err
	}
	return true, nil
}

// unsureList names the first few targets without an answer.
func unsureList(targets []string) string {
	slices.Sort(targets)
	targets = slices.Compact(targets)
	if len(targets) > 3 {
		return fmt.Sprintf("%s and %d more", strings.Join(targets[:3], ", "), len(targets)-3)
	}
	return strings.Join(targets, ", ")
}

// recorder is the Sender of a Sending: it sends through next and records
// what the service confirmed.
type recorder struct {
	s            *Sending
	next         reconcile.Sender
	fromSnapshot bool            // the plan was made from the snapshot
	strict       map[string]bool // keys of the users created strictly; nil: none
}

func (c *recorder) Send(ctx context.Context, req reconcile.Request, testOnly bool) ([]reconcile.EntryFailure, error) {
	req = c.strictCreates(req)
	failed, err := c.next.Send(ctx, req, testOnly)
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if err != nil {
		for i := range req.Entries {
			c.s.journal.unsure = append(c.s.journal.unsure, req.Entries[i].Target())
		}
		return failed, err
	}
	at := make(map[int]reconcile.EntryFailure, len(failed))
	for _, f := range failed {
		if g, ok := at[f.Index]; !ok || f.Step < g.Step {
			at[f.Index] = f
		}
	}
	for i := range req.Entries {
		e := &req.Entries[i]
		f, ok := at[i]
		switch {
		case !ok:
			c.s.journal.done(e, len(e.Steps))
		case f.Step < 0 || f.Step > len(e.Steps):
			c.s.journal.unsure = append(c.s.journal.unsure, e.Target())
		default:
			c.s.journal.done(e, f.Step)
		}
		if _, shows := contradictions[f.Code]; ok && shows && c.fromSnapshot && c.s.contra == nil {
			c.s.contra = &Contradiction{Target: e.Target(), Code: f.Code, Message: f.Message}
			if c.s.switchable {
				c.s.cancel()
			}
		}
	}
	return failed, nil
}

// strictCreates is req with the create steps of the users in c.strict
// strict (the entries it changes are copies).
func (c *recorder) strictCreates(req reconcile.Request) reconcile.Request {
	if len(c.strict) == 0 {
		return req
	}
	out := reconcile.Request{Entries: slices.Clone(req.Entries)}
	for i := range out.Entries {
		e := &out.Entries[i]
		if e.User == nil || len(e.Steps) == 0 || e.Steps[0].Kind != reconcile.StepCreate || !c.strict[e.User.Key()] {
			continue
		}
		e.Steps = slices.Clone(e.Steps)
		e.Steps[0].Strict = true
	}
	return out
}

func (c *recorder) RevokeInvite(ctx context.Context, email string) error {
	err := c.next.RevokeInvite(ctx, email)
	c.invite(email, err, inviteGone)
	return err
}

// invite records an invite operation's outcome: done (op), no pending
// invite (gone), or unknown.
func (c *recorder) invite(email string, err error, op inviteOp) {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	switch {
	case err == nil:
		c.s.journal.invites = append(c.s.journal.invites, inviteDone{email: email, op: op})
	case errors.Is(err, reconcile.ErrNoPendingInvite):
		c.s.journal.invites = append(c.s.journal.invites, inviteDone{email: email, op: inviteGone})
	default:
		c.s.journal.unsure = append(c.s.journal.unsure, strings.ToLower(email))
	}
}
