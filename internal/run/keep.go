package run

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/run/approval"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/util/oneline"
	"github.com/orgsync/orgsync/reconcile"
)

// record keeps in the quarantine what a real run records of d, the
// gate's decision on g's plan: the pending approvals narrowed (closed as
// dropped when nothing is left), what rejected approvals held and the
// sources still ask for held again, the rejected approvals taken up, and
// what a tripped limit withheld held for approval; and says it in g's
// decision, the plan's notes and the log. A dry or test-only run writes
// nothing. It stops at the first write that fails.
func (gt *gate) record(g *Gated, d *decided, log *zap.Logger) error {
	plan, real, now := g.plan.Plan, g.mode == Real, time.Now().UTC()
	byID := make(map[string]store.Approval, len(d.pending)+2)
	for _, a := range d.pending {
		byID[a.ID] = a
	}
	for _, n := range d.Narrowed {
		a := byID[n.ID]
		kept, dropped, err := gt.narrow(&a, n, g, real)
		if err != nil {
			return fmt.Errorf("approval %s: recording what the sources no longer ask for: %w", a.ID, err)
		}
		byID[a.ID] = a
		if len(dropped) == 0 { // another orgsync decided on it first: held as it is
			continue
		}
		if real {
			log.Info(oneline.Narrowed(a.ID, len(dropped), len(kept)), zap.String("approval", a.ID))
		}
		g.decision.Narrowed = append(g.decision.Narrowed, Narrowed{Approval: &a, Dropped: dropped})
		plan.Notes = append(plan.Notes, oneline.NarrowedNote(a.ID, len(dropped), len(kept)))
	}
	if err := gt.holdAgain(g, d.rejected, &d.Decision, byID, now, log); err != nil {
		return err
	}
	for _, q := range d.Holding {
		plan.Notes = append(plan.Notes, oneline.Quarantined(q.ID, q.Changes))
	}
	g.decision.Quarantined, g.decision.Tripped, g.decision.Stopped = d.Quarantined, d.Tripped, d.Stopped
	if d.Created != nil {
		a := store.Approval{ID: d.Created.ID, Org: g.plan.Org.Name, Created: now, Updated: now, Run: g.plan.Run,
			Reason: d.Tripped, Status: store.Pending, Changes: d.Created.Changes}
		if err := gt.quarantine.save(&a); err != nil {
			return fmt.Errorf("holding the withheld changes for approval (nothing destructive sent): %w", err)
		}
		log.Warn("safety limit: destructive changes held for approval", zap.String("approval", a.ID),
			zap.Int("changes", len(a.Changes)), zap.String("reason", a.Reason))
		g.decision.Created, byID[a.ID] = &a, a
	}
	switch {
	case plan.Safety == nil || g.mode == Dry:
	case d.Stopped:
		log.Error(plan.Safety.Error())
	default:
		log.Warn(plan.Safety.Error())
	}
	for _, p := range d.Pending {
		g.decision.Pending = append(g.decision.Pending, byID[p.ID])
	}
	return nil
}

// holdAgain keeps what d decided of the rejected approvals: the new
// pending approval of what they held and the sources still ask for (added
// to byID), and each taken up by this run.
func (gt *gate) holdAgain(g *Gated, rejected []store.Approval, d *approval.Decision, byID map[string]store.Approval, now time.Time, log *zap.Logger) error {
	ids := make([]string, len(rejected))
	for i := range rejected {
		ids[i] = rejected[i].ID
	}
	var again string
	if d.Again != nil {
		a := store.Approval{ID: d.Again.ID, Org: g.plan.Org.Name, Created: now, Updated: now, Run: g.plan.Run, Status: store.Pending, Changes: d.Again.Changes,
			Reason: fmt.Sprintf("rejected in approval %s, still asked for by the sources: held again until someone decides", strings.Join(ids, ", "))}
		if err := gt.quarantine.save(&a); err != nil {
			return fmt.Errorf("holding again the changes of rejected approval %s (nothing destructive sent): %w", strings.Join(ids, ", "), err)
		}
		log.Warn("changes a rejected approval held, still asked for by the sources, held again for approval", zap.String("approval", a.ID),
			zap.Int("changes", len(a.Changes)), zap.Strings("rejected", ids))
		g.decision.HeldAgain, byID[a.ID], again = &a, a, a.ID
	}
	if d.RejectedHeld > 0 {
		g.plan.Plan.Notes = append(g.plan.Plan.Notes, oneline.HeldRejected(ids, d.RejectedHeld, again))
	}
	for _, a := range rejected {
		if !slices.Contains(d.TakenUp, a.ID) {
			continue
		}
		a.TakenUp, a.Updated, a.HeldAgain = g.plan.Run, now, again
		if err := gt.quarantine.save(&a); err != nil {
			return fmt.Errorf("approval %s: recording that this run took it up: %w", a.ID, err)
		}
	}
	return nil
}

// narrow narrows pending approval a as the decision n says, and returns
// what it kept and dropped. A real run narrows it as it claims it
// (quarantine.narrowed), which may differ from what the gate read: nothing
// is dropped when another orgsync decided on it first.
func (gt *gate) narrow(a *store.Approval, n approval.Narrowing, g *Gated, real bool) (kept, dropped []reconcile.Change, err error) {
	if !real {
		narrowTo(a, n.Kept, n.Dropped, g.plan.Run)
		return n.Kept, n.Dropped, nil
	}
	err = gt.quarantine.narrowed(a, g.plan.Run, func(fresh *store.Approval) bool {
		if kept, dropped = approval.Narrow(fresh.Changes, g.plan.Plan); len(dropped) > 0 {
			narrowTo(fresh, kept, dropped, g.plan.Run)
		}
		return len(dropped) > 0
	})
	return kept, dropped, err
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
