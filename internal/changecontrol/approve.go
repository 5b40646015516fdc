package changecontrol

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/store"
)

// ErrNoStateDir says that approvals need a state directory.
var ErrNoStateDir = run.ErrNoStateDir

// ErrNotConfirmed is Approve's error when the approver said no.
var ErrNotConfirmed = errors.New("not approved: the approval stays pending")

// ApproveOptions are how an approval is decided.
type ApproveOptions struct {
	By store.Decider // who approves, and how
	// DryRun shows what would be applied, and applies nothing.
	DryRun bool
	// Confirm, when set, is asked once the changes are shown; no (false)
	// applies nothing.
	Confirm func() (bool, error)
}

// ApprovalView shows an approval being decided (internal/view's Approving
// is one): the approval, then what releasing it against a fresh plan
// applies, reporting whether that is anything, and that a dry run applied
// nothing.
type ApprovalView interface {
	Approval(a *store.Approval)
	Release(g *run.Gated) bool
	NotApplied()
}

// Approve shows approval id on v, plans its organization afresh with j
// (made with c as its observer), shows the held changes the fresh plan
// still wants, and, unless a dry run or the approver says no, has the
// safety gate release them: they are applied, once, and the approval is
// closed with who approved it. It returns the result of applying them
// (nil when nothing was applied).
func (c *Control) Approve(ctx context.Context, j *run.Job, id string, v ApprovalView, o ApproveOptions) (*run.Result, error) {
	dir := c.StateDir()
	if dir == nil {
		return nil, ErrNoStateDir
	}
	a, err := dir.Approval(id)
	if err != nil {
		return nil, err
	}
	if a.Status != store.Pending {
		return nil, fmt.Errorf("approval %s is %s already%s", a.ID, a.Status, decidedBy(a))
	}
	v.Approval(a)
	plans, err := j.Plan(ctx)
	if err != nil {
		return nil, err
	}
	p := orgPlan(plans, a.Org)
	if p == nil {
		return nil, fmt.Errorf("approval %s: organization %s is not in this run (--orgs)", a.ID, a.Org)
	}
	g, err := j.Release(p, id, o.By, run.Dry)
	if err != nil {
		return nil, err
	}
	applies := v.Release(g)
	if o.DryRun {
		v.NotApplied()
		return nil, nil
	}
	if applies && o.Confirm != nil {
		ok, err := o.Confirm()
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, ErrNotConfirmed
		}
	}
	return c.release(ctx, j, p, id, o)
}

// release has the gate release approval id against p and applies it.
func (c *Control) release(ctx context.Context, j *run.Job, p *run.OrgPlan, id string, o ApproveOptions) (*run.Result, error) {
	g, err := j.Release(p, id, o.By, run.Real)
	if err != nil {
		return nil, err
	}
	res := j.Apply(ctx, g)
	return res, res.Err
}

// Approver is who decides an approval: by when set (approve --by), else
// the OS user running orgsync; via says how.
func Approver(by, via string) store.Decider {
	if by = strings.TrimSpace(by); by == "" {
		by = osUser()
	}
	return store.Decider{By: by, Via: via}
}

// osUser names the OS user running orgsync.
func osUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return fmt.Sprintf("uid %d", os.Getuid())
}

// decidedBy says who closed an approval and when, after a comma; empty
// when that is not recorded.
func decidedBy(a *store.Approval) string {
	if a.Decided == nil {
		return ""
	}
	return fmt.Sprintf(", by %s at %s", a.Decided, a.Closed.Format(time.RFC3339))
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

// Reject discards pending approval id, decided by by.
func (c *Control) Reject(id string, by store.Decider) (*store.Approval, error) {
	dir := c.StateDir()
	if dir == nil {
		return nil, ErrNoStateDir
	}
	a, err := dir.Claim(id)
	if err != nil {
		return nil, err
	}
	return a, dir.Close(a, store.Rejected, by)
}

// Pending returns the pending approvals, oldest first.
func (c *Control) Pending() ([]store.Approval, error) {
	dir := c.StateDir()
	if dir == nil {
		return nil, ErrNoStateDir
	}
	return dir.Approvals("", store.Pending)
}
