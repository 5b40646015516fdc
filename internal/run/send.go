package run

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/run/incremental"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umapi"
	"github.com/orgsync/orgsync/target/umtarget"
)

// send applies g's plan through client with o: as it is, behind the
// journal of the approval it applies (journaled), and, in a real run with
// incremental runs on, recording in the organization's snapshot what the
// service confirmed (snapshotSending). When an answer contradicts the
// snapshot, the run reads the whole organization, plans and gates it again
// and sends the rest (sendAgain; res then holds the plan and the gate's
// decision of both).
func (j *Job) send(ctx context.Context, g *Gated, res *Result, client *umapi.Client, o reconcile.ApplyOptions) (*reconcile.Result, error) {
	target := newTarget(client)
	if g.applying == nil {
		return j.sendPlan(ctx, g, res, target, target, o)
	}
	ctx, jr := journal(ctx, target, g.applying) // an approval's changes: journaled
	defer jr.cancel()
	applied, err := j.sendPlan(ctx, g, res, target, jr, o)
	return applied, errors.Join(err, jr.Err())
}

// sendPlan sends g's plan through to (target reads when an incremental
// run must read again).
func (j *Job) sendPlan(ctx context.Context, g *Gated, res *Result, target *umtarget.Target, to reconcile.Sender, o reconcile.ApplyOptions) (*reconcile.Result, error) {
	p := &g.plan
	if p.inc == nil || g.mode != Real {
		return reconcile.Apply(ctx, p.Plan, to, o)
	}
	s, err := p.inc.sending(p, to, g.release == nil)
	if err != nil {
		return nil, err
	}
	defer s.finish()
	first, err := s.send(ctx, p.Plan, o)
	if s.contradiction() == nil || ctx.Err() != nil {
		return first, err
	}
	return j.sendAgain(ctx, g, res, s, target, o, first)
}

// sendAgain goes on with a run whose sending stopped at an answer that
// contradicts the snapshot (first is what it sent): the sending reads the
// whole organization, the run plans it and the gate decides on the plan
// as they did the first, and the sending sends what the gate lets through.
func (j *Job) sendAgain(ctx context.Context, g *Gated, res *Result, s *snapshotSending, target *umtarget.Target, o reconcile.ApplyOptions,
	first *reconcile.Result) (*reconcile.Result, error) {
	p, c := &g.plan, s.contradiction()
	p.log.Warn("an answer of the service contradicts the snapshot: the run stops sending, reads the whole organization and plans again",
		zap.String("why", c.String()))
	cur, err := s.readFully(ctx, target)
	if err != nil {
		return first, InPhase(PhaseRead, fmt.Errorf("reading the organization after %s: %w", c, p.Org.Hint(err)))
	}
	again := *p
	if again.Plan, err = p.inc.diff(cur); err != nil {
		return first, InPhase(PhasePlan, err)
	}
	again.Read = Reading{Kind: incremental.Full, Reason: p.inc.Reason()}
	g2 := j.gated(&again, Real)
	if g2.plan.Err != nil {
		return first, InPhase(g2.plan.Phase, g2.plan.Err)
	}
	o.Requests = g2.plan.Plan.Batches(reconcile.DefaultLimits())
	second, err := s.send(ctx, g2.plan.Plan, o)
	res.Plan = sentPlan(p.Plan, first, g2.plan.Plan, c)
	res.Counts, res.Decision, res.Read, res.Switched = res.Plan.Counts(), mergeDecisions(g.decision, g2.decision), again.Read, true
	return sentResult(first, second), err
}

// sentPlan is what a run that switched to a full read sent: the changes
// of its first plan that went through (not failed, not left unsent), then
// the second plan's, with the second plan's other fields and a note of
// the switch.
func sentPlan(first *reconcile.Plan, applied *reconcile.Result, second *reconcile.Plan, c *incremental.Contradiction) *reconcile.Plan {
	skip := map[string]bool{}
	for _, f := range applied.Failures {
		skip[strings.ToLower(f.Target)] = true
	}
	for _, t := range applied.Unsent {
		skip[strings.ToLower(t)] = true
	}
	out := *second
	out.Changes = nil
	for _, ch := range first.Changes {
		if !skip[strings.ToLower(ch.Key())] {
			out.Changes = append(out.Changes, ch)
		}
	}
	out.Changes = append(out.Changes, second.Changes...)
	out.Notes = append(out.Notes, "switched to a full read: "+c.String())
	return &out
}

// sentResult adds up what the two sendings of a run that switched did;
// the failures and unsent targets are the second's (the first's were
// planned again).
func sentResult(first, second *reconcile.Result) *reconcile.Result {
	out := *second
	out.Requests += first.Requests
	out.Entries += first.Entries
	out.Invites += first.Invites
	return &out
}

// mergeDecisions is the gate's decision over both plans of a run that
// switched: the approval the first made, the approvals both narrowed,
// the rest as the second decided.
func mergeDecisions(first, second Decision) Decision {
	if second.Created == nil {
		second.Created = first.Created
	}
	if second.HeldAgain == nil {
		second.HeldAgain = first.HeldAgain
	}
	second.Narrowed = slices.Concat(first.Narrowed, second.Narrowed)
	return second
}
