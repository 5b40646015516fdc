package run

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/run/incremental"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umapi"
)

// The switch to a full read. An answer of the service that contradicts the
// snapshot an incremental run planned from ends the run's sending (send);
// the run then goes the normal way once more: the reader reads the whole
// organization, the plan made from that read goes through the safety gate
// like any plan, and the sender sends what the gate lets through.

// applySwitching applies g, and when an answer ended its sending by
// contradicting the snapshot its plan was made from, goes on from a full
// read (switchToFull); then ends the run as Apply does.
func (j *Job) applySwitching(ctx context.Context, g *Gated) *Result {
	res, sent := j.apply(ctx, g)
	if res.contradiction != nil {
		res = j.switchToFull(ctx, g, res)
	}
	j.end(g, res, sent)
	return res
}

// switchToFull goes on with a run whose sending an answer contradicting the
// snapshot ended (first is what it did): the organization is read in full
// and planned again (planAgain), the gate decides on that plan, and what
// it lets through is applied; the Result is then what both sent
// (switched). What fails the second plan fails the run, with what the
// first sent.
func (j *Job) switchToFull(ctx context.Context, g *Gated, first *Result) *Result {
	p, c := &g.plan, first.contradiction
	p.log.Warn("an answer of the service contradicts the snapshot: the run stops sending, reads the whole organization and plans again",
		zap.String("why", c.String()))
	first.contradiction = nil
	client, err := j.Client(p.Org)
	if err != nil {
		first.Err, first.Phase = err, PhaseSecret
		return first
	}
	again, err := j.planAgain(ctx, p, client, c)
	if err == nil {
		g2 := j.gated(again, g.mode)
		if err = InPhase(g2.plan.Phase, g2.plan.Err); err == nil {
			second, _ := j.apply(ctx, g2)
			return switched(first, second, c)
		}
	}
	first.Err, first.Phase = err, PhaseOr(err, PhaseRead)
	first.Stats, first.Elapsed = client.Stats().Since(p.stats0), time.Since(p.start)
	return first
}

// planAgain is the plan of p's organization from a full read through
// client, after an answer contradicted the snapshot p was planned from
// (c): made as p was, for the same desired users.
func (j *Job) planAgain(ctx context.Context, p *OrgPlan, client *umapi.Client, c *incremental.Contradiction) (*OrgPlan, error) {
	again := &OrgPlan{Org: p.Org, Run: p.Run, log: p.log, stats0: p.stats0, start: p.start, memory: p.memory}
	cur, err := p.inc.readAgain(ctx, again, newTarget(client), c)
	if err != nil {
		return nil, InPhase(PhaseRead, fmt.Errorf("reading the organization after %s: %w", c, p.Org.Hint(err)))
	}
	if again.Plan, err = again.inc.diff(again, cur); err != nil {
		return nil, InPhase(PhasePlan, err)
	}
	return again, nil
}

// switched is the Result of a run that switched to a full read at answer
// c: first is what its first plan did, second what the plan from the
// full read did. Its plan is what was sent of both (sentPlan), its
// decision the gate's over both, its counts, requests and entries both
// plans'; the rest is the second's.
func switched(first, second *Result, c *incremental.Contradiction) *Result {
	out := *second
	out.Plan = sentPlan(first.Plan, first.Applied, second.Plan, second.Applied != nil, c)
	out.Counts, out.Decision, out.Switched = out.Plan.Counts(), mergeDecisions(first.Decision, second.Decision), true
	out.Applied = sentResult(first.Applied, second.Applied)
	if out.Mode == Real {
		out.ByKind = appliedByKind(out.Plan, out.Applied)
	}
	return &out
}

// sentPlan is what a run that switched to a full read sent: the changes
// of its first plan that went through (not failed, not left unsent), then
// the second plan's when it could be sent (secondSent), with the second
// plan's other fields and a note of the switch.
func sentPlan(first *reconcile.Plan, applied *reconcile.Result, second *reconcile.Plan, secondSent bool, c *incremental.Contradiction) *reconcile.Plan {
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
	if secondSent {
		out.Changes = append(out.Changes, second.Changes...)
	}
	out.Notes = append(out.Notes, "switched to a full read: "+c.String())
	return &out
}

// sentResult adds up what the two sendings of a run that switched did;
// the failures and unsent targets are the second's (the first's were
// planned again).
func sentResult(first, second *reconcile.Result) *reconcile.Result {
	if first == nil || second == nil {
		return cmp.Or(second, first)
	}
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
