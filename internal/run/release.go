package run

import (
	"cmp"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/run/approval"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/reconcile"
)

// ErrNoStateDir says that approvals need a state directory.
var ErrNoStateDir = errors.New("approvals and the history are kept in the state directory: set state.dir in the configuration")

// Release is the gate's decision to send what pending approval id still
// holds, decided by by: made against p, its organization's fresh plan, it
// lets through the held changes the plan still wants (Decision.Dropped
// lists the others) and nothing else. A real release claims the approval,
// so that no other orgsync applies it too; Apply then sends its changes
// and closes it as approved (dropped when nothing was left), or puts it
// back as pending when nothing could be sent. A dry release shows what a
// real one would send.
//
// Its errors are marked with their phase: the organization's plan's
// (secret, sign-in, read, plan), the sources' when they were incomplete,
// the gate's when the approval cannot be read, is no longer pending or
// is claimed by another orgsync.
func (j *Job) Release(p *OrgPlan, id string, by store.Decider, mode Mode) (*Gated, error) {
	q := j.gate.quarantine
	a, err := q.approval(id)
	if err != nil {
		return nil, err
	}
	switch {
	case a.Status != store.Pending:
		return nil, InPhase(PhaseGate, fmt.Errorf("approval %s is %s already", a.ID, a.Status))
	case a.Org != p.Org.Name:
		return nil, fmt.Errorf("approval %s is of organization %s, not %s", a.ID, a.Org, p.Org.Name)
	case p.Err != nil:
		return nil, InPhase(cmp.Or(p.Phase, PhasePlan), p.Err)
	case approval.SourcesIncomplete(p.Plan):
		return nil, InPhase(PhaseSources, fmt.Errorf("not applied: %s; approve again when the sources are whole", p.Plan.Safety.Reason))
	}
	kept, dropped := approval.Narrow(a.Changes, p.Plan)
	var applying *store.Applying
	if mode == Real {
		keys := make([]string, len(kept))
		for i := range kept {
			keys[i] = kept[i].Key()
		}
		if a, applying, err = q.claim(a.ID, store.NewClaimant(p.Run, by, keys)); err != nil {
			return nil, InPhase(PhaseGate, err)
		}
		kept, dropped = approval.Narrow(a.Changes, p.Plan) // as claimed: another orgsync may have narrowed it since
	}
	g := &Gated{plan: *p, mode: mode, release: a, applying: applying, by: by,
		decision: Decision{Released: a, Dropped: dropped}}
	g.plan.Plan = &reconcile.Plan{Changes: kept, UserGroups: p.Plan.UserGroups, Unmatched: p.Plan.Unmatched}
	return g, nil
}

// settle closes the approval a real release applied: approved once its
// changes were sent (whatever the service answered each: the history
// says), dropped when nothing of it was left, and pending again when
// nothing could be sent. Its journal stays until the outcome is recorded
// (finish): an apply interrupted before is recovered from it.
func (j *Job) settle(g *Gated, res *Result) {
	a, ap := g.release, g.applying
	if ap == nil {
		return
	}
	var err error
	switch {
	case len(g.plan.Plan.Changes) == 0:
		err = ap.Close(a, store.Dropped, g.by)
	case res.Applied == nil || res.Applied.Requests+res.Applied.Invites == 0 || ap.Sent() == 0:
		err = ap.Pending(a, false)
	default:
		err = ap.Close(a, store.Approved, g.by)
	}
	if err != nil {
		g.plan.logger(j).Error("the approval's end could not be recorded: the next orgsync command that touches it finishes it from its journal",
			zap.String("approval", a.ID), zap.Error(err))
		res.Err, res.Phase = errors.Join(res.Err, fmt.Errorf("approval %s: %w", a.ID, err)), PhaseRecord
	}
}

// finish ends a real release once its outcome is heard: its journal is
// removed when the outcome is recorded, else left for the next orgsync
// that touches the approval to recover what it lacks.
func (j *Job) finish(g *Gated, recorded bool) {
	ap := g.applying
	if ap == nil {
		return
	}
	if !recorded {
		ap.Release()
		return
	}
	if err := ap.Finish(); err != nil {
		g.plan.logger(j).Warn("the approval's journal could not be removed: the next orgsync command that touches it removes it",
			zap.String("approval", g.release.ID), zap.Error(err))
	}
}
