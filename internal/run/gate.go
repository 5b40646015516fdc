package run

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/run/approval"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/util/oneline"
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
// Plan.Withheld. The lists the gate decides are copies too: what a caller
// does with them changes nothing of what Apply sends.
func (g *Gated) OrgPlan() *OrgPlan {
	p := g.plan
	if p.Plan != nil {
		p.Plan = clonePlan(p.Plan)
	}
	return &p
}

// Mode is the mode the plan was gated for, and is applied in.
func (g *Gated) Mode() Mode { return g.mode }

// Decision is what the gate decided.
func (g *Gated) Decision() Decision { return g.decision }

// errNotGated is the Result of applying a Gated the gate did not make.
var errNotGated = errors.New("refused: the plan was not decided on by the safety gate; nothing sent")

// gate is the safety gate, the step between a plan and its sending that
// no run skips (decide): each organization's safety, and the quarantine
// it keeps the pending approvals in.
type gate struct {
	byOrg      map[string]safety // each organization's, by name
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
func (j *Job) gated(p *OrgPlan, mode Mode) *Gated { return j.gate.decide(p, mode, p.logger(j)) }

// decide is the safety gate. Against the organization's pending approvals
// (the quarantine, in state.dir) it
//   - drops from them what the plan no longer wants (a real run records
//     it in each approval), unless the sources were incomplete;
//   - holds back what they still hold, whatever the plan's own count;
//   - when a safety limit tripped (the plan's count includes the held
//     changes still wanted, so a mass removal split over several runs
//     trips it all the same), applies safety.onLimit: stop holds back
//     every change; hold, in a real run with a state directory, keeps the
//     withheld changes no approval holds yet as a new pending approval and
//     lets the rest through. Without a state directory a tripped limit
//     fails the run (nothing destructive is sent).
//
// p is not changed. A dry or test-only gate writes nothing; log is the
// organization's.
func (gt *gate) decide(p *OrgPlan, mode Mode, log *zap.Logger) *Gated {
	g := &Gated{plan: *p, mode: mode}
	if p.Err != nil || p.Plan == nil {
		return g
	}
	g.plan.Plan = clonePlan(p.Plan)
	var err error
	if mode == Real {
		g.decision.Recovered, err = gt.quarantine.recover(p.Org.Name)
	}
	var pending, applying, rejected []store.Approval
	if err == nil {
		pending, applying, rejected, err = gt.quarantine.approvals(p.Org.Name, mode == Real)
	}
	if err == nil {
		pending, err = gt.narrow(g, pending, log)
	}
	if err == nil {
		pending, err = gt.holdRejected(g, pending, rejected, log)
	}
	if err != nil {
		g.plan.Err, g.plan.Phase = err, PhaseGate
		return g
	}
	quarantineHeld(g, append(slices.Clip(pending), applying...))
	if err := gt.onLimit(g, gt.byOrg[p.Org.Name], pending, log); err != nil {
		g.plan.Err, g.plan.Phase = err, PhaseGate
		return g
	}
	g.decision.Pending = append(pending, g.decision.createdList()...)
	return g
}

func (d *Decision) createdList() []store.Approval {
	if d.Created == nil {
		return nil
	}
	return []store.Approval{*d.Created}
}

// holdRejected holds what the organization's rejected approvals no run
// has taken up yet (rejected) held and
// the sources still ask for: the first real run after a rejection makes
// of it a new pending approval (whatever the run's own count), added to
// pending, and takes the rejected approvals up; what the sources no
// longer ask for is let go. A dry or test-only run holds the same and
// writes nothing. Sources that were incomplete take nothing up.
func (gt *gate) holdRejected(g *Gated, pending, rejected []store.Approval, log *zap.Logger) ([]store.Approval, error) {
	if len(rejected) == 0 {
		return pending, nil
	}
	plan := g.plan.Plan
	held := make([][]reconcile.Change, len(pending))
	for i := range pending {
		held[i] = pending[i].Changes
	}
	var still []reconcile.Change
	ids := make([]string, len(rejected))
	for i, a := range rejected {
		kept, _ := approval.Narrow(a.Changes, plan)
		still = append(still, approval.Uncovered(kept, append(held, still)...)...)
		ids[i] = a.ID
	}
	now := time.Now().UTC()
	again := store.Approval{ID: store.NewID(), Org: g.plan.Org.Name, Created: now, Updated: now, Run: g.plan.Run, Status: store.Pending, Changes: still,
		Reason: fmt.Sprintf("rejected in approval %s, still asked for by the sources: held again until someone decides", strings.Join(ids, ", "))}
	if g.mode != Real || approval.SourcesIncomplete(plan) {
		if n := holdBack(g, still); n > 0 {
			plan.Notes = append(plan.Notes, oneline.HeldRejected(ids, n, ""))
		}
		return pending, nil
	}
	if len(still) > 0 {
		if err := gt.quarantine.save(&again); err != nil {
			return nil, fmt.Errorf("holding again the changes of rejected approval %s (nothing destructive sent): %w", strings.Join(ids, ", "), err)
		}
		log.Warn("changes a rejected approval held, still asked for by the sources, held again for approval", zap.String("approval", again.ID),
			zap.Int("changes", len(still)), zap.Strings("rejected", ids))
		g.decision.HeldAgain = &again
		pending = append(pending, again)
		plan.Notes = append(plan.Notes, oneline.HeldRejected(ids, len(still), again.ID))
	}
	for _, a := range rejected {
		a.TakenUp, a.Updated = g.plan.Run, now
		if len(still) > 0 {
			a.HeldAgain = again.ID
		}
		if err := gt.quarantine.save(&a); err != nil {
			return nil, fmt.Errorf("approval %s: recording that this run took it up: %w", a.ID, err)
		}
	}
	return pending, nil
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
// them.
func clonePlan(p *reconcile.Plan) *reconcile.Plan {
	c := *p
	c.Changes, c.Withheld, c.Notes = slices.Clone(p.Changes), slices.Clone(p.Withheld), slices.Clone(p.Notes)
	c.InviteGroups, c.UserGroups, c.MissingGroups = slices.Clone(p.InviteGroups), slices.Clone(p.UserGroups), slices.Clone(p.MissingGroups)
	if p.Safety != nil {
		s := *p.Safety
		c.Safety = &s
	}
	return &c
}

// narrow takes out of the pending approvals what the plan no longer
// wants (neither sends nor withholds), recording it in each in a real run,
// and returns the approvals still pending. Sources that were incomplete
// narrow nothing: a change they no longer plan may be one a broken record
// hid.
func (gt *gate) narrow(g *Gated, pending []store.Approval, log *zap.Logger) ([]store.Approval, error) {
	plan := g.plan.Plan
	if approval.SourcesIncomplete(plan) {
		return pending, nil
	}
	out := pending[:0]
	for _, a := range pending {
		var kept, dropped []reconcile.Change
		narrow := func(a *store.Approval) bool {
			if kept, dropped = approval.Narrow(a.Changes, plan); len(dropped) > 0 {
				narrowTo(a, kept, dropped, g.plan.Run)
			}
			return len(dropped) > 0
		}
		if _, some := approval.Narrow(a.Changes, plan); len(some) == 0 {
			out = append(out, a)
			continue
		}
		if g.mode != Real {
			narrow(&a)
		} else if err := gt.quarantine.narrowed(&a, g.plan.Run, narrow); err != nil {
			return nil, fmt.Errorf("approval %s: recording what the sources no longer ask for: %w", a.ID, err)
		}
		if len(dropped) == 0 { // another orgsync decided on it first: held as it is
			out = append(out, a)
			continue
		}
		g.decision.Narrowed = append(g.decision.Narrowed, Narrowed{Approval: &a, Dropped: dropped})
		if g.mode == Real {
			log.Info(oneline.Narrowed(a.ID, len(dropped), len(kept)), zap.String("approval", a.ID))
		}
		g.plan.Plan.Notes = append(g.plan.Plan.Notes, oneline.NarrowedNote(a.ID, len(dropped), len(kept)))
		if len(kept) > 0 {
			out = append(out, a)
		}
	}
	return out, nil
}

// narrowTo takes out of a what the sources no longer ask for (dropped),
// leaving kept: a is closed as dropped by run when nothing is left.
func narrowTo(a *store.Approval, kept, dropped []reconcile.Change, run string) {
	now := time.Now().UTC()
	a.Changes = kept
	a.Narrowed = append(a.Narrowed, store.Narrowing{Time: now, Run: run, Dropped: dropped, Left: len(kept)})
	if len(kept) == 0 {
		a.Status, a.Closed, a.Decided = store.Dropped, now, &store.Decider{By: "run " + run, Via: "sync"}
	}
}

// quarantineHeld holds back what the pending approvals hold: not sent,
// listed with the withheld changes.
func quarantineHeld(g *Gated, pending []store.Approval) {
	plan := g.plan.Plan
	for _, a := range pending {
		if n := holdBack(g, a.Changes); n > 0 {
			plan.Notes = append(plan.Notes, oneline.Quarantined(a.ID, n))
		}
	}
}

// holdBack moves the parts of the plan's changes that held holds to the
// withheld ones, not sent, and returns how many of the plan's changes
// (sent or withheld) held holds.
func holdBack(g *Gated, held []reconcile.Change) int {
	plan := g.plan.Plan
	var quarantined []reconcile.Change
	plan.Changes, quarantined = approval.Quarantine(plan.Changes, held)
	_, inWithheld := approval.Quarantine(plan.Withheld, held)
	plan.Withheld = append(plan.Withheld, quarantined...)
	g.decision.Quarantined = append(g.decision.Quarantined, quarantined...)
	return len(quarantined) + len(inWithheld)
}

// onLimit does what s, the organization's safety, says a run over a
// limit does (onLimit) when a safety limit tripped.
func (gt *gate) onLimit(g *Gated, s safety, pending []store.Approval, log *zap.Logger) error {
	plan := g.plan.Plan
	if !approval.LimitTripped(plan) {
		if plan.Safety != nil && g.mode != Dry {
			log.Warn(plan.Safety.Error())
		}
		return nil
	}
	d := &g.decision
	d.Tripped = plan.Safety.Reason
	switch {
	case s.stop:
		plan.Withheld = append(plan.Withheld, plan.Changes...)
		plan.Changes, plan.InviteGroups = nil, nil
		plan.Safety.Reason += fmt.Sprintf(" (%s: stop)", s.onLimitKey)
		plan.Safety.Stopped, plan.Safety.Withheld = true, len(plan.Withheld)
		d.Stopped = true
		if g.mode != Dry {
			log.Error(plan.Safety.Error())
		}
	case g.mode == Real && gt.quarantine.kept():
		return gt.hold(g, pending, log)
	case g.mode != Dry:
		log.Warn(plan.Safety.Error())
	}
	return nil
}

// hold keeps what the plan withholds and no pending approval holds yet as
// a new pending approval; the rest of the plan goes through.
func (gt *gate) hold(g *Gated, pending []store.Approval, log *zap.Logger) error {
	plan := g.plan.Plan
	held := make([][]reconcile.Change, len(pending))
	for i := range pending {
		held[i] = pending[i].Changes
	}
	if fresh := approval.Uncovered(plan.Withheld, held...); len(fresh) > 0 {
		now := time.Now().UTC()
		a := &store.Approval{ID: store.NewID(), Org: g.plan.Org.Name, Created: now, Updated: now, Run: g.plan.Run,
			Reason: plan.Safety.Reason, Status: store.Pending, Changes: fresh}
		if err := gt.quarantine.save(a); err != nil {
			return fmt.Errorf("holding the withheld changes for approval (nothing destructive sent): %w", err)
		}
		log.Warn("safety limit: destructive changes held for approval", zap.String("approval", a.ID),
			zap.Int("changes", len(fresh)), zap.String("reason", a.Reason))
		g.decision.Created = a
	}
	plan.Safety = nil // held, not failed: the rest of the plan goes through
	return nil
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
