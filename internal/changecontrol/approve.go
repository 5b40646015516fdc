package changecontrol

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/orgsync/orgsync/internal/approval"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/state"
	"github.com/orgsync/orgsync/reconcile"
)

// ErrNoStateDir says that approvals need a state directory.
var ErrNoStateDir = errors.New("approvals and the history are kept in the state directory: set state.dir in the configuration")

// Approve shows approval id on w, plans its organization afresh with j
// (made with c as its observer, in a dry mode: nothing is held), and
// applies, once, the held changes the fresh plan still wants. It returns
// the result of applying them (nil when nothing was left).
func (c *Control) Approve(ctx context.Context, j *run.Job, id string, w io.Writer) (*run.Result, error) {
	dir := c.StateDir()
	if dir == nil {
		return nil, ErrNoStateDir
	}
	a, err := dir.Approval(id)
	if err != nil {
		return nil, err
	}
	if a.Status != state.Pending {
		return nil, fmt.Errorf("approval %s is %s already", a.ID, a.Status)
	}
	Show(w, a)
	plans, err := j.Plan(ctx)
	if err != nil {
		return nil, err
	}
	p := orgPlan(plans, a.Org)
	switch {
	case p == nil:
		return nil, fmt.Errorf("approval %s: organization %s is not in this run (--orgs)", a.ID, a.Org)
	case p.Err != nil:
		return nil, p.Err
	case approval.SourcesIncomplete(p.Plan):
		return nil, fmt.Errorf("not applied: %s; approve again when the sources are whole", p.Plan.Safety.Reason)
	}
	kept, dropped := approval.Narrow(a.Changes, p.Plan)
	for i := range dropped {
		fmt.Fprintf(w, "no longer asked for by the sources, left out: %s\n", dropped[i].String())
	}
	if a, err = dir.Claim(a.ID); err != nil {
		return nil, err
	}
	if len(kept) == 0 {
		fmt.Fprintln(w, "nothing left to apply: the approval is dropped")
		return nil, dir.Close(a, state.Dropped)
	}
	op := &run.OrgPlan{Org: p.Org, Plan: &reconcile.Plan{Changes: kept, UserGroups: p.Plan.UserGroups, Unmatched: p.Plan.Unmatched}}
	c.mu.Lock()
	c.approval, c.plans[p.Org.Name], c.start = a.ID, op, time.Now()
	c.mu.Unlock()
	res := j.Apply(ctx, op, run.Real)
	c.settled(p.Org.Name, a.ID)
	if err := dir.Close(a, state.Approved); err != nil {
		return res, errors.Join(res.Err, err)
	}
	return res, res.Err
}

// settled takes approval id, which the fresh plan found pending before it
// was claimed, out of what organization org holds, so that the result of
// approving it does not say it is held still.
func (c *Control) settled(org, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := c.held[org]
	h.Pending = slices.DeleteFunc(slices.Clone(h.Pending), func(p string) bool { return p == id })
	c.held[org] = h
}

// orgPlan is the plan of the organization named org.
func orgPlan(plans *run.Plans, org string) *run.OrgPlan {
	for _, p := range plans.Orgs {
		if p.Org.Name == org {
			return p
		}
	}
	return nil
}

// Reject discards pending approval id.
func (c *Control) Reject(id string) (*state.Approval, error) {
	dir := c.StateDir()
	if dir == nil {
		return nil, ErrNoStateDir
	}
	a, err := dir.Claim(id)
	if err != nil {
		return nil, err
	}
	return a, dir.Close(a, state.Rejected)
}

// Show writes an approval and its changes.
func Show(w io.Writer, a *state.Approval) {
	fmt.Fprintf(w, "approval %s, organization %s, held %s: %s\n", a.ID, a.Org, a.Created.Format(time.RFC3339), a.Reason)
	for i := range a.Changes {
		fmt.Fprintf(w, "  %s\n", a.Changes[i].String())
	}
}

// List writes the pending approvals.
func (c *Control) List(w io.Writer) error {
	dir := c.StateDir()
	if dir == nil {
		return ErrNoStateDir
	}
	list, err := dir.Approvals("", state.Pending)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintln(w, "no pending approvals")
	}
	for _, a := range list {
		fmt.Fprintf(w, "%s  %s  organization %s: %d changes held: %s\n", a.ID, a.Created.Format(time.RFC3339), a.Org, len(a.Changes), a.Reason)
	}
	return nil
}

// WriteResult writes the outcome of an organization's applied plan (see
// run.Result.WriteText) and the approvals it holds, with what to do about
// them.
func (c *Control) WriteResult(w io.Writer, r *run.Result, multiOrg bool) {
	if r == nil || r.Applied == nil {
		return
	}
	r.WriteText(w, multiOrg)
	prefix := ""
	if multiOrg {
		prefix = r.Org.Name + ": "
	}
	for _, id := range c.HeldIn(r.Org.Name).Pending {
		fmt.Fprintf(w, "%sheld for approval: %s (review it with orgsync approve %[2]s, or discard it with orgsync reject %[2]s)\n", prefix, id)
	}
}
