// Package approval is the safety gate's decision: an organization's
// safety settings (Safety), and Decide, which takes a plan and the
// approvals around it as data and returns what is sent, held back,
// stopped and held for approval. A pending approval is a quarantine (no
// run sends what it holds), a later run drops from it what it no longer
// wants, and orgsync approve applies only what a fresh plan still wants
// (Narrow).
package approval

import (
	"fmt"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/reconcile"
)

// Held is an approval as the gate decides around it: its id and the
// changes it holds.
type Held struct {
	ID      string
	Changes []reconcile.Change
}

// Facts are what the safety gate decides an organization's plan on.
type Facts struct {
	// Plan is the gate's own copy of the plan, which Decide changes: what
	// may be sent stays in Changes, what is held back goes to Withheld;
	// a tripped limit's Safety is marked stopped, or cleared when what it
	// withheld is held for approval.
	Plan *reconcile.Plan
	// Pending are the organization's pending approvals, Applying those
	// orgsync approve is applying (held until they are closed), Rejected
	// the rejected ones no real run has taken up yet.
	Pending, Applying, Rejected []Held
	Safety                      Safety
	// Real is set for a real run: it takes the rejected approvals up,
	// and what it holds anew is a new pending approval, named by NewID.
	Real bool
	// Kept is set when there is a state directory to keep approvals in:
	// without one a tripped limit holds nothing (and fails the run).
	Kept  bool
	NewID func() string
}

// Decision is what Decide decided about a plan and the approvals around
// it: what the gate records (in a real run) and reports.
type Decision struct {
	// Narrowed are the pending approvals the plan no longer wants all of,
	// in Facts.Pending's order.
	Narrowed []Narrowing
	// TakenUp are the rejected approvals a real run takes up, Again the
	// new pending approval of what they held and the sources still ask
	// for (nil when nothing), and RejectedHeld how many of the plan's
	// changes what they held holds back. Sources that were incomplete
	// take nothing up: what the rejected approvals held is only held.
	TakenUp      []string
	Again        *Held
	RejectedHeld int
	// Holding are the approvals holding changes of the plan, each with
	// how many, in order: the pending ones, Again, then those being
	// applied. Quarantined are the changes (or their parts) they hold.
	Holding     []Holding
	Quarantined []reconcile.Change
	// Tripped is the reason of the safety limit the plan exceeds, counting
	// the changes pending approvals hold with the new ones; empty when
	// none. Stopped is set when onLimit stop holds back every change.
	Tripped string
	Stopped bool
	// Created is the new pending approval of what a tripped limit withheld
	// and no pending approval held yet (onLimit hold, a real run with a
	// state directory); nil when none.
	Created *Held
	// Pending are the approvals pending after the run: those of
	// Facts.Pending with something left (narrowed), Again and Created.
	Pending []Held
}

// Narrowing is one pending approval the plan no longer wants all of:
// Kept is what it still holds (nothing: it is dropped), Dropped what was
// taken out.
type Narrowing struct {
	ID            string
	Kept, Dropped []reconcile.Change
}

// Holding counts the changes of a plan that approval ID holds.
type Holding struct {
	ID      string
	Changes int
}

// Decide is the safety gate's decision on a plan, in one step over the
// facts. Against the pending approvals (a quarantine) it
//   - takes out of them what the plan no longer wants (neither sends nor
//     withholds), unless the sources were incomplete;
//   - holds again what rejected approvals held and the sources still ask
//     for: a real run makes of it a new pending approval;
//   - holds back what the approvals (pending, being applied) hold,
//     whatever the plan's own count;
//   - when a safety limit tripped (the plan's count includes the held
//     changes still wanted, so a mass removal split over several runs
//     trips it all the same), does what the safety says: stop holds back
//     every change; hold, in a real run with a state directory, makes of
//     the withheld changes no approval holds yet a new pending approval
//     and lets the rest through.
func Decide(f Facts) Decision {
	var d Decision
	pending := d.narrow(f.Plan, f.Pending)
	pending = d.holdRejected(f, pending)
	for _, h := range append(slices.Clip(pending), f.Applying...) {
		if n := d.holdBack(f.Plan, h.Changes); n > 0 {
			d.Holding = append(d.Holding, Holding{ID: h.ID, Changes: n})
		}
	}
	d.onLimit(f, pending)
	d.Pending = pending
	if d.Created != nil {
		d.Pending = append(d.Pending, *d.Created)
	}
	return d
}

// narrow takes out of pending what plan no longer wants and returns the
// approvals still pending. Sources that were incomplete narrow nothing: a
// change they no longer plan may be one a broken record hid.
func (d *Decision) narrow(plan *reconcile.Plan, pending []Held) []Held {
	if SourcesIncomplete(plan) {
		return pending
	}
	var out []Held
	for _, h := range pending {
		kept, dropped := Narrow(h.Changes, plan)
		if len(dropped) == 0 {
			out = append(out, h)
			continue
		}
		d.Narrowed = append(d.Narrowed, Narrowing{ID: h.ID, Kept: kept, Dropped: dropped})
		if len(kept) > 0 {
			out = append(out, Held{ID: h.ID, Changes: kept})
		}
	}
	return out
}

// holdRejected holds what the rejected approvals held and the sources
// still ask for, beyond what pending holds: a real run over whole sources
// takes the rejected approvals up, and makes of it a new pending
// approval, added to pending; else it is only held back.
func (d *Decision) holdRejected(f Facts, pending []Held) []Held {
	if len(f.Rejected) == 0 {
		return pending
	}
	held := changesOf(pending)
	var still []reconcile.Change
	for _, a := range f.Rejected {
		kept, _ := Narrow(a.Changes, f.Plan)
		still = append(still, Uncovered(kept, append(held, still)...)...)
	}
	if !f.Real || SourcesIncomplete(f.Plan) {
		d.RejectedHeld = d.holdBack(f.Plan, still)
		return pending
	}
	for _, a := range f.Rejected {
		d.TakenUp = append(d.TakenUp, a.ID)
	}
	if len(still) == 0 {
		return pending
	}
	d.Again, d.RejectedHeld = &Held{ID: f.NewID(), Changes: still}, len(still)
	return append(pending, *d.Again)
}

// holdBack moves the parts of plan's changes that held holds to the
// withheld ones, not sent, and returns how many of the plan's changes
// (sent or withheld) held holds.
func (d *Decision) holdBack(plan *reconcile.Plan, held []reconcile.Change) int {
	var quarantined []reconcile.Change
	plan.Changes, quarantined = Quarantine(plan.Changes, held)
	_, inWithheld := Quarantine(plan.Withheld, held)
	plan.Withheld = append(plan.Withheld, quarantined...)
	d.Quarantined = append(d.Quarantined, quarantined...)
	return len(quarantined) + len(inWithheld)
}

// onLimit does what f.Safety says a run over a limit does, when a safety
// limit tripped.
func (d *Decision) onLimit(f Facts, pending []Held) {
	plan := f.Plan
	if !LimitTripped(plan) {
		return
	}
	d.Tripped = plan.Safety.Reason
	switch {
	case f.Safety.Stop:
		plan.Withheld = append(plan.Withheld, plan.Changes...)
		plan.Changes, plan.InviteGroups = nil, nil
		plan.Safety.Reason += fmt.Sprintf(" (%s: stop)", f.Safety.OnLimitBy)
		plan.Safety.Stopped, plan.Safety.Withheld = true, len(plan.Withheld)
		d.Stopped = true
	case f.Real && f.Kept:
		if fresh := Uncovered(plan.Withheld, changesOf(pending)...); len(fresh) > 0 {
			d.Created = &Held{ID: f.NewID(), Changes: fresh}
		}
		plan.Safety = nil // held, not failed: the rest of the plan goes through
	}
}

// changesOf are the changes each approval holds.
func changesOf(approvals []Held) [][]reconcile.Change {
	out := make([][]reconcile.Change, len(approvals))
	for i := range approvals {
		out[i] = approvals[i].Changes
	}
	return out
}

// LimitTripped reports whether a safety limit (maxRemovals, maxChanges)
// withheld the plan's destructive changes. Changes withheld because the
// sources failed or reported problems are not for approval: approving
// them would remove users on the word of a broken source.
func LimitTripped(p *reconcile.Plan) bool {
	return p.Safety != nil && p.Safety.LimitName != ""
}

// SourcesIncomplete reports whether the plan withheld its destructive
// changes because the sources were empty or reported problems.
func SourcesIncomplete(p *reconcile.Plan) bool {
	return p.Safety != nil && p.Safety.LimitName == ""
}

// wanted indexes the destructive parts of a plan: for each change kind
// and key, the groups removed (lower case) of an update, or an empty set
// for a change that is destructive as a whole.
type wanted map[string]map[string]bool

func index(key string, c *reconcile.Change) string { return string(c.Kind) + "\x00" + key }

// add records the destructive part of each change.
func (w wanted) add(changes []reconcile.Change) {
	for i := range changes {
		c := &changes[i]
		if !c.Destructive() {
			continue
		}
		k := index(c.Key(), c)
		if w[k] == nil {
			w[k] = map[string]bool{}
		}
		for _, g := range c.Remove {
			w[k][strings.ToLower(g)] = true
		}
	}
}

// destructiveOf indexes what plan p still wants to take away: the
// destructive parts of its changes and its withheld changes.
func destructiveOf(p *reconcile.Plan) wanted {
	w := wanted{}
	w.add(p.Changes)
	w.add(p.Withheld)
	return w
}

// keep returns the part of c that w holds, and whether there is any.
func (w wanted) keep(c reconcile.Change) (reconcile.Change, bool) {
	groups, ok := w[index(c.Key(), &c)]
	if !ok {
		return c, false
	}
	if c.Kind.Info().TakesAway {
		return c, true
	}
	var kept []string
	for _, g := range c.Remove {
		if groups[strings.ToLower(g)] {
			kept = append(kept, g)
		}
	}
	c.Remove, c.Set, c.Add = kept, nil, nil
	return c, len(kept) > 0
}

// Narrow splits held into the changes a fresh plan still wants and those
// it does not any more. A removal, deletion or revoked invite is still
// wanted when fresh plans it (applied or withheld); of a membership
// removal, the groups fresh still removes.
func Narrow(held []reconcile.Change, fresh *reconcile.Plan) (kept, dropped []reconcile.Change) {
	w := destructiveOf(fresh)
	for _, c := range held {
		k, ok := w.keep(c)
		if !ok {
			dropped = append(dropped, c)
			continue
		}
		kept = append(kept, k)
		if d, rest := minus(c, k); rest {
			dropped = append(dropped, d)
		}
	}
	return kept, dropped
}

// minus is what of c is not in k, a part of c, and whether there is any.
func minus(c, k reconcile.Change) (reconcile.Change, bool) {
	if c.Kind.Info().TakesAway {
		return c, false
	}
	have := foldSet(k.Remove)
	var rest []string
	for _, g := range c.Remove {
		if !have[strings.ToLower(g)] {
			rest = append(rest, g)
		}
	}
	c.Remove = rest
	return c, len(rest) > 0
}

// Quarantine splits changes into what may be sent and what the pending
// approvals hold: the held part of a change (a removal, or the held groups
// of a membership removal) is quarantined, the rest of it may be sent.
func Quarantine(changes []reconcile.Change, pending ...[]reconcile.Change) (send, quarantined []reconcile.Change) {
	w := wanted{}
	for _, held := range pending {
		w.add(held)
	}
	for _, c := range changes {
		k, ok := w.keep(c)
		if !c.Destructive() || !ok {
			send = append(send, c)
			continue
		}
		quarantined = append(quarantined, k)
		if rest, left := minus(c, k); left || (!c.Kind.Info().TakesAway && (c.Set != nil || len(c.Add) > 0)) {
			send = append(send, rest)
		}
	}
	return send, quarantined
}

// Count is the number of destructive changes of changes.
func Count(changes []reconcile.Change) int {
	n := 0
	for i := range changes {
		if changes[i].Destructive() {
			n++
		}
	}
	return n
}

// Uncovered returns the changes of withheld that none of the pending
// approvals holds yet: what a new approval is to hold.
func Uncovered(withheld []reconcile.Change, pending ...[]reconcile.Change) []reconcile.Change {
	var out []reconcile.Change
	for _, c := range withheld {
		rest, left := c, true
		for _, held := range pending {
			w := wanted{}
			w.add(held)
			k, ok := w.keep(rest)
			if !ok {
				continue
			}
			if rest, left = minus(rest, k); !left {
				break
			}
		}
		if left {
			out = append(out, rest)
		}
	}
	return out
}

// foldSet is the set of the lower-cased names.
func foldSet(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[strings.ToLower(n)] = true
	}
	return m
}
