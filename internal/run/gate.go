package run

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/run/approval"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/reconcile"
)

// Gated is one organization's plan after the safety gate: what may be
// sent, and what the gate decided about the rest. Only the gate makes one
// (gate.decide, Job.Release), and Apply takes nothing else: no caller can
// send a plan the gate has not decided on, change it after, nor gate a
// plan in one mode and apply it in another.
type Gated struct {
	plan     OrgPlan // a copy of the organization's plan, its Plan the gate's own
	mode     Mode
	decision Decision
	release  *store.Approval // the approval a release applies (claimed in a real run)
	applying *store.Applying // its claim and journal, in a real run
	by       store.Decider   // who released it
}

// Decision is what the safety gate decided about an organization's plan.
type Decision struct {
	// Tripped is the reason of the safety limit (maxRemovals, maxChanges)
	// that the plan exceeds, counting the changes the organization's
	// pending approvals hold with the new ones; empty when none.
	Tripped string
	// Stopped is set when a limit tripped under safety.onLimit stop:
	// nothing is sent.
	Stopped bool
	// Quarantined are the changes (or their parts) that pending approvals
	// hold: they are not sent, whatever the run's own count.
	Quarantined []reconcile.Change
	// Narrowed are the pending approvals the run took changes out of,
	// the sources no longer asking for them (closed as dropped when
	// nothing is left).
	Narrowed []Narrowed
	// Created is the approval the run made of what it withheld and no
	// pending approval held yet (onLimit hold, a real run).
	Created *store.Approval
	// HeldAgain is the approval the run made of what rejected approvals
	// held and the sources still ask for (a real run): a rejection
	// discards changes, it never lets a later run send them.
	HeldAgain *store.Approval
	// Pending are the organization's pending approvals after the gate.
	Pending []store.Approval
	// Released is the approval the plan applies (orgsync approve), and
	// Dropped what of it the sources no longer ask for (not sent).
	Released *store.Approval
	Dropped  []reconcile.Change
	// Recovered are the interrupted applies of the organization's
	// approvals the gate of a real run recovered first (see
	// store.Dir.Recover): what the service had confirmed is recorded, and
	// each approval is applied or pending again.
	Recovered []store.Recovery
}

// Narrowed is one pending approval a run narrowed.
type Narrowed struct {
	Approval *store.Approval    // as it is after the run (Status dropped when nothing is left)
	Dropped  []reconcile.Change // taken out of it
}

// Held counts the changes the organization's pending approvals hold.
func (d *Decision) Held() int {
	n := 0
	for i := range d.Pending {
		n += len(d.Pending[i].Changes)
	}
	return n
}

// PendingIDs are the ids of the pending approvals.
func (d *Decision) PendingIDs() []string {
	ids := make([]string, len(d.Pending))
	for i := range d.Pending {
		ids[i] = d.Pending[i].ID
	}
	return ids
}

// OrgPlan is a copy of the gated plan: the organization's, with what the
// gate lets through in Plan.Changes and what it holds back in
// Plan.Withheld. The lists the gate decides and the changes in them are
// copies too, to the last list of groups: what a caller does with them
// changes nothing of what Apply sends.
func (g *Gated) OrgPlan() *OrgPlan {
	p := g.plan
	if p.Plan != nil {
		p.Plan = clonePlan(p.Plan, cloneChanges)
	}
	return &p
}

// Err is the error that stopped the organization's plan (OrgPlan.Err),
// read without the copy OrgPlan makes.
func (g *Gated) Err() error { return g.plan.Err }

// Mode is the mode the plan was gated for, and is applied in.
func (g *Gated) Mode() Mode { return g.mode }

// Decision is a copy of what the gate decided: its lists, the approvals
// and their changes are copies too.
func (g *Gated) Decision() Decision { return g.decision.clone() }

// errNotGated is the Result of applying a Gated the gate did not make.
var errNotGated = errors.New("refused: the plan was not decided on by the safety gate; nothing sent")

// gate is the safety gate, the step between a plan and its sending that
// no run skips (gated): each organization's safety, and the quarantine
// it keeps the pending approvals in.
type gate struct {
	byOrg      map[string]approval.Safety // each organization's, by name
	quarantine approvals
}

// approvals are the gate's store of approvals, the quarantine: state.dir's
// (quarantine).
type approvals interface {
	// kept reports whether there is a state directory to keep approvals
	// in: without one nothing is held, and a tripped limit fails the run.
	kept() bool
	// recover recovers the interrupted applies of organization org's
	// approvals.
	recover(org string) ([]store.Recovery, error)
	// approvals are organization org's pending approvals, those being
	// applied and the rejected ones no run has taken up yet.
	approvals(org string, create bool) (pending, applying, rejected []store.Approval, err error)
	// narrowed narrows approval a, as read, with narrow (narrowTo), run
	// being the run that does: see quarantine.narrowed.
	narrowed(a *store.Approval, run string, narrow func(*store.Approval) bool) error
	// save writes a new approval, or a changed one.
	save(a *store.Approval) error
	// approval reads approval id; claim claims it for its apply (Release).
	approval(id string) (*store.Approval, error)
	claim(id string, c store.Claimant) (*store.Approval, *store.Applying, error)
}

// gated is what the safety gate lets through of p in mode.
func (j *Job) gated(p *OrgPlan, mode Mode) *Gated { return j.gate.gated(p, mode, p.logger(j)) }

// gated is the safety gate, the step between a plan and its sending that
// no run skips: it decides on p in mode (decide), and a real run records
// its decision in the quarantine (record; a write that fails fails the
// organization's run: nothing is sent). p is not changed. A dry or
// test-only gate writes nothing; log is the organization's.
func (gt *gate) gated(p *OrgPlan, mode Mode, log *zap.Logger) *Gated {
	g, d := gt.decide(p, mode)
	if d == nil {
		return g
	}
	if err := gt.record(g, d, log); err != nil {
		g.plan.Err, g.plan.Phase = err, PhaseGate
	}
	return g
}

// decide is the safety gate's decision on p in mode. It reads the
// organization's approvals (the quarantine, in state.dir; a real run
// first recovers their interrupted applies), and hands them, with its own
// copy of the plan and the organization's safety, to approval.Decide,
// which decides what is sent, held back, stopped and held for approval:
// what the Gated returned sends, and what a real run is to keep of the
// decision (nil when there is nothing to keep: no plan, or the approvals
// could not be read, which fails the organization's run).
func (gt *gate) decide(p *OrgPlan, mode Mode) (*Gated, *decided) {
	g := &Gated{plan: *p, mode: mode}
	if p.Err != nil || p.Plan == nil {
		return g, nil
	}
	g.plan.Plan = clonePlan(p.Plan, slices.Clone)
	h, err := gt.read(p.Org.Name, mode, &g.decision)
	if err != nil {
		g.plan.Err, g.plan.Phase = err, PhaseGate
		return g, nil
	}
	pending, applying, rejected := heldOf(h.pending), heldOf(h.applying), heldOf(h.rejected)
	d := approval.Decide(approval.Facts{Plan: g.plan.Plan, Pending: pending, Applying: applying, Rejected: rejected,
		Safety: gt.byOrg[p.Org.Name], Real: mode == Real, Kept: gt.quarantine.kept(), NewID: store.NewID})
	return g, &decided{held: h, Decision: d}
}

// decided is the gate's decision on a plan, with the approvals it was
// made around.
type decided struct {
	held
	approval.Decision
}

// held are an organization's approvals the gate decides around: the
// pending ones, those being applied (orgsync approve has claimed them:
// held until they are closed), and the rejected ones no run has taken up
// yet.
type held struct{ pending, applying, rejected []store.Approval }

// read reads organization org's approvals; a real run first recovers
// their interrupted applies (d.Recovered).
func (gt *gate) read(org string, mode Mode, d *Decision) (h held, err error) {
	if mode == Real {
		if d.Recovered, err = gt.quarantine.recover(org); err != nil {
			return h, err
		}
	}
	h.pending, h.applying, h.rejected, err = gt.quarantine.approvals(org, mode == Real)
	return h, err
}

// heldOf are the approvals as the decision sees them.
func heldOf(approvals []store.Approval) []approval.Held {
	out := make([]approval.Held, len(approvals))
	for i := range approvals {
		out[i] = approval.Held{ID: approvals[i].ID, Changes: approvals[i].Changes}
	}
	return out
}

// Holding returns the pending approval of organization t that holds c, nil
// when none does: what an action outside a run (invites revoke) must not
// send while an approval holds it.
func (j *Job) Holding(t *config.NamedTarget, c reconcile.Change) (*store.Approval, error) {
	pending, applying, _, err := j.gate.quarantine.approvals(t.Name, false)
	if err != nil {
		return nil, err
	}
	pending = append(pending, applying...)
	for i := range pending {
		if _, held := approval.Quarantine([]reconcile.Change{c}, pending[i].Changes); len(held) > 0 {
			return &pending[i], nil
		}
	}
	return nil, nil
}

// clonePlan copies the lists of p the gate decides and those sent with
// them, the lists of changes with cloneList (slices.Clone, or cloneChanges to
// copy the changes' own lists too).
func clonePlan(p *reconcile.Plan, cloneList func([]reconcile.Change) []reconcile.Change) *reconcile.Plan {
	c := *p
	c.Changes, c.Withheld, c.InviteGroups = cloneList(p.Changes), cloneList(p.Withheld), cloneList(p.InviteGroups)
	c.Notes, c.UserGroups, c.MissingGroups = slices.Clone(p.Notes), slices.Clone(p.UserGroups), slices.Clone(p.MissingGroups)
	if p.Safety != nil {
		s := *p.Safety
		c.Safety = &s
	}
	return &c
}

// cloneChanges copies changes and the lists each holds.
func cloneChanges(changes []reconcile.Change) []reconcile.Change {
	out := slices.Clone(changes)
	for i := range out {
		c := &out[i]
		c.User.Groups, c.Add, c.Remove = slices.Clone(c.User.Groups), slices.Clone(c.Add), slices.Clone(c.Remove)
		if c.Set != nil {
			set := *c.Set
			for _, v := range []**string{&set.FirstName, &set.LastName, &set.Email, &set.Username} {
				if *v != nil {
					s := **v
					*v = &s
				}
			}
			c.Set = &set
		}
	}
	return out
}

// clone is a copy of d whose lists, approvals and changes are copies.
func (d Decision) clone() Decision {
	d.Quarantined, d.Dropped = cloneChanges(d.Quarantined), cloneChanges(d.Dropped)
	d.Created, d.HeldAgain, d.Released = cloneApproval(d.Created), cloneApproval(d.HeldAgain), cloneApproval(d.Released)
	d.Narrowed, d.Pending, d.Recovered = slices.Clone(d.Narrowed), slices.Clone(d.Pending), slices.Clone(d.Recovered)
	for i := range d.Narrowed {
		d.Narrowed[i].Approval, d.Narrowed[i].Dropped = cloneApproval(d.Narrowed[i].Approval), cloneChanges(d.Narrowed[i].Dropped)
	}
	for i := range d.Pending {
		d.Pending[i] = *cloneApproval(&d.Pending[i])
	}
	for i := range d.Recovered {
		d.Recovered[i].Approval = cloneApproval(d.Recovered[i].Approval)
	}
	return d
}

// cloneApproval is a copy of a (nil for nil) whose changes and records
// are copies.
func cloneApproval(a *store.Approval) *store.Approval {
	if a == nil {
		return nil
	}
	c := *a
	c.Changes, c.Narrowed, c.Attempts = cloneChanges(a.Changes), slices.Clone(a.Narrowed), slices.Clone(a.Attempts)
	if a.Decided != nil {
		d := *a.Decided
		c.Decided = &d
	}
	return &c
}

// quarantine is the gate's store of approvals: state.dir's. Without
// state.dir (path empty) there is none: nothing is held, and a tripped
// limit fails the run.
type quarantine struct {
	path string
	opts store.Options
	mu   sync.Mutex
	dir  *store.Dir
}

// newQuarantine is the quarantine of the state directory s, faults
// injected at each step of a write (Options.Faults).
func newQuarantine(s config.State, faults func(step string) error) *quarantine {
	return &quarantine{path: s.Dir, opts: StoreOptions(s, faults)}
}

func (q *quarantine) kept() bool { return q.path != "" }

// open returns the state directory, created when create is set; nil
// when there is none (no state.dir, or a directory not made yet).
func (q *quarantine) open(create bool) (*store.Dir, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.dir != nil || q.path == "" {
		return q.dir, nil
	}
	if _, err := os.Stat(q.path); !create && os.IsNotExist(err) {
		return nil, nil
	}
	dir, err := store.Open(q.path, q.opts)
	if err != nil {
		return nil, err
	}
	q.dir = dir
	return dir, nil
}

// recover recovers the interrupted applies of organization org's
// approvals (none without a state directory).
func (q *quarantine) recover(org string) ([]store.Recovery, error) {
	dir, err := q.open(false)
	if err != nil || dir == nil {
		return nil, err
	}
	recs, err := dir.RecoverAll(org)
	if err != nil {
		return recs, fmt.Errorf("recovering an interrupted apply of an approval (nothing is sent meanwhile): %w", err)
	}
	return recs, nil
}

// approvals returns organization org's pending approvals, those being
// applied (orgsync approve has claimed them: held until they are closed),
// and the rejected ones no run has taken up yet, in one read of the
// directory.
func (q *quarantine) approvals(org string, create bool) (pending, applying, rejected []store.Approval, err error) {
	dir, err := q.open(create)
	if err != nil || dir == nil {
		return nil, nil, nil, err
	}
	all, err := dir.Approvals(org, "")
	if err == nil {
		applying, err = dir.Claimed(org)
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading the pending approvals (nothing is sent while they cannot be read): %w", err)
	}
	for _, a := range all {
		switch {
		case a.Status == store.Pending:
			pending = append(pending, a)
		case a.Status == store.Rejected && a.TakenUp == "":
			rejected = append(rejected, a)
		}
	}
	return pending, applying, rejected, nil
}

// narrowed narrows pending approval a, as the gate read it, as one
// decision on it (store.Dir.Decide), so that no other orgsync decides on
// it meanwhile: narrow narrows the approval as it is once claimed, which
// a becomes, saved (closed as dropped when nothing is left of it). When
// another orgsync decided on it first (it is no longer pending) or holds
// it still, narrow is not called and a stays as read: the run holds it
// so.
func (q *quarantine) narrowed(a *store.Approval, run string, narrow func(*store.Approval) bool) error {
	dir, err := q.open(true)
	if err != nil {
		return err
	}
	fresh, err := dir.Decide(a.ID, store.NewClaimant(run, store.Decider{By: "run " + run, Via: "sync"}, nil), func(f *store.Approval) bool {
		if !narrow(f) {
			return false
		}
		f.Updated = time.Now().UTC()
		return true
	})
	switch {
	case errors.Is(err, store.ErrNoApproval), errors.Is(err, store.ErrBeingApplied):
		return nil
	case err != nil:
		return err
	}
	*a = *fresh
	return nil
}

// approval reads approval id: ErrNoStateDir without a state directory.
func (q *quarantine) approval(id string) (*store.Approval, error) {
	dir, err := q.open(false)
	switch {
	case err != nil:
		return nil, InPhase(PhaseGate, err)
	case dir == nil && q.path == "":
		return nil, ErrNoStateDir
	case dir == nil:
		return nil, fmt.Errorf("approval %s: %w", id, store.ErrNoApproval)
	}
	a, err := dir.Approval(id)
	return a, InPhase(PhaseGate, err)
}

// claim claims approval id for its apply, by c.
func (q *quarantine) claim(id string, c store.Claimant) (*store.Approval, *store.Applying, error) {
	dir, err := q.open(false)
	if err == nil && dir == nil {
		err = fmt.Errorf("approval %s: %w", id, store.ErrNoApproval)
	}
	if err != nil {
		return nil, nil, err
	}
	a, ap, _, err := dir.Claim(id, c)
	return a, ap, err
}

// save writes a new approval.
func (q *quarantine) save(a *store.Approval) error {
	dir, err := q.open(true)
	if err != nil {
		return err
	}
	return dir.SaveApproval(a)
}
