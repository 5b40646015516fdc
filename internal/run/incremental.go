package run

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/run/incremental"
	"github.com/orgsync/orgsync/internal/store/snapshot"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umapi"
	"github.com/orgsync/orgsync/target/umtarget"
)

// Reading is how an organization's run read the organization: Kind is
// full or incremental (planned from its snapshot), Reason why, when
// incremental runs are on (incremental.enabled).
type Reading struct {
	Kind   incremental.Kind `json:"kind"`
	Reason string           `json:"reason,omitempty"`
}

// String says it as a plan and the logs do, e.g. "incremental run: last
// full read 3h ago, next in 21h" or "full read: --full asks for it".
func (r Reading) String() string {
	what := "full read"
	if r.Kind == incremental.Incremental {
		what = "incremental run"
	}
	if r.Reason == "" {
		return what
	}
	return what + ": " + r.Reason
}

// incrementalRun is an organization's run with its snapshot, and how to
// plan again from another current state (after a full read; planOrg sets
// it).
type incrementalRun struct {
	*incremental.Run
	diff func(cur *reconcile.Current) (*reconcile.Plan, error)
}

// read reads organization p.Org's current state for need through t.
// With incremental runs on, the organization's snapshot decides how
// (p.Read says which and why): an incremental run plans from it, a full
// one reads the organization and keeps what it read for the next
// snapshot.
func (j *Job) read(ctx context.Context, p *OrgPlan, t *umtarget.Target, need reconcile.ReadNeeds) (*reconcile.Current, error) {
	p.Read = Reading{Kind: incremental.Full}
	if !j.cfg.Incremental.Enabled {
		return t.ReadCurrent(ctx, need)
	}
	start := time.Now()
	r := incremental.Begin(incremental.Settings{Store: snapshot.Open(j.cfg.State.Dir), Org: p.Org.Name, OrgID: p.Org.OrgID,
		Fingerprint: snapshot.Fingerprint(p.Org.OrgID, p.Org.BaseURL), FullEvery: time.Duration(j.cfg.Incremental.FullEvery),
		Full: j.full}, need)
	p.inc, p.Read = &incrementalRun{Run: r}, Reading{Kind: r.Kind(), Reason: r.Reason()}
	fields := []zap.Field{zap.String("read", string(r.Kind())), zap.String("why", r.Reason())}
	if r.Kind() == incremental.Incremental {
		fields = append(fields, zap.Int("snapshotUsers", r.Users()), zap.Duration("snapshotLoad", time.Since(start).Round(time.Millisecond)))
	}
	if r.Warn() {
		p.log.Warn(p.Read.String(), fields...)
	} else {
		p.log.Info(p.Read.String(), fields...)
	}
	return r.Read(ctx, t, t)
}

// send applies g's plan through client with o. A real run with incremental
// runs on records in the organization's snapshot what the service
// confirmed and, when an answer contradicts the snapshot, reads the whole
// organization, plans again and sends the rest (res then holds the plan
// and the gate's decision of both). Other runs send as they are.
func (j *Job) send(ctx context.Context, g *Gated, res *Result, client *umapi.Client, o reconcile.ApplyOptions) (*reconcile.Result, error) {
	target := newTarget(client)
	var sender reconcile.Sender = target
	if g.applying != nil { // an approval's changes: journaled
		var jr *journaled
		ctx, jr = journal(ctx, target, g.applying)
		defer jr.cancel()
		applied, err := j.sendPlan(ctx, g, res, target, jr, o)
		return applied, errors.Join(err, jr.Err())
	}
	return j.sendPlan(ctx, g, res, target, sender, o)
}

// sendPlan sends g's plan through sender (target reads when an
// incremental run must read again).
func (j *Job) sendPlan(ctx context.Context, g *Gated, res *Result, target *umtarget.Target, sender reconcile.Sender, o reconcile.ApplyOptions) (*reconcile.Result, error) {
	p := &g.plan
	if p.inc == nil || g.mode != Real {
		return reconcile.Apply(ctx, p.Plan, sender, o)
	}
	s, err := p.inc.Send(p.Plan, g.release == nil)
	if err != nil {
		return nil, err
	}
	defer j.record(p, s)
	sctx, wrapped := s.Wrap(ctx, sender, p.Plan)
	first, err := reconcile.Apply(sctx, p.Plan, wrapped, o)
	c := s.Contradiction()
	if c == nil || ctx.Err() != nil {
		return first, err
	}
	p.log.Warn("an answer of the service contradicts the snapshot: the run stops sending, reads the whole organization and plans again",
		zap.String("why", c.String()))
	cur, err := s.ReadFully(ctx, target)
	if err != nil {
		return first, InPhase(PhaseRead, fmt.Errorf("reading the organization after %s: %w", c, WithSettingHint(err, p.Org)))
	}
	again := *p
	if again.Plan, err = p.inc.diff(cur); err != nil {
		return first, InPhase(PhasePlan, err)
	}
	again.Read = Reading{Kind: incremental.Full, Reason: p.inc.Reason()}
	g2 := j.Gate(&again, Real)
	if g2.plan.Err != nil {
		return first, InPhase(g2.plan.Phase, g2.plan.Err)
	}
	o.Requests = g2.plan.Plan.Batches(reconcile.DefaultLimits())
	sctx, wrapped = s.Wrap(ctx, sender, g2.plan.Plan)
	second, err := reconcile.Apply(sctx, g2.plan.Plan, wrapped, o)
	res.Plan = sentPlan(p.Plan, first, g2.plan.Plan, c)
	res.Counts, res.Decision, res.Read, res.Switched = res.Plan.Counts(), mergeDecisions(g.decision, g2.decision), again.Read, true
	return sentResult(first, second), err
}

// record saves what the run sent in the organization's snapshot.
func (j *Job) record(p *OrgPlan, s *incremental.Sending) {
	start := time.Now()
	saved, err := s.Finish()
	if err != nil {
		p.log.Warn("the snapshot could not record this run: the next run reads the whole organization", zap.Error(err))
	}
	if !saved {
		return
	}
	p.log.Info("snapshot recorded", zap.Int("snapshotUsers", p.inc.Users()), zap.Duration("snapshotSave", time.Since(start).Round(time.Millisecond)))
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
