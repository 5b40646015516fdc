package run

import (
	"context"
	"errors"

	"github.com/orgsync/orgsync/internal/run/incremental"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umapi"
)

// send applies g's plan through client with o: as it is, behind the
// journal of the approval it applies (journaled), and, in a real run with
// incremental runs on, recording in the organization's snapshot what the
// service confirmed (snapshotSending). An answer that contradicts the
// snapshot the plan was made from ends the sending of a run's own plan
// there: that answer is returned, and the run goes on from a full read
// (switchToFull). A released approval's changes are sent to the end: the
// next run reads fully.
func (j *Job) send(ctx context.Context, g *Gated, client *umapi.Client, o reconcile.ApplyOptions) (*reconcile.Result, *incremental.Contradiction, error) {
	target := newTarget(client)
	if g.applying == nil {
		return sendPlan(ctx, g, target, o)
	}
	ctx, jr := journal(ctx, target, g.applying) // an approval's changes: journaled
	defer jr.cancel()
	applied, c, err := sendPlan(ctx, g, jr, o)
	return applied, c, errors.Join(err, jr.Err())
}

// sendPlan sends g's plan through to.
func sendPlan(ctx context.Context, g *Gated, to reconcile.Sender, o reconcile.ApplyOptions) (*reconcile.Result, *incremental.Contradiction, error) {
	p := &g.plan
	if p.inc == nil || g.mode != Real {
		applied, err := reconcile.Apply(ctx, p.Plan, to, o)
		return applied, nil, err
	}
	switchable := g.release == nil
	s, err := p.inc.sending(p, to, switchable)
	if err != nil {
		return nil, nil, err
	}
	defer s.finish()
	applied, err := s.send(ctx, p.Plan, o)
	if c := s.contradiction(); c != nil && switchable && ctx.Err() == nil {
		return applied, c, nil // the error is the end of the sending
	}
	return applied, nil, err
}
