package changecontrol

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strings"
	"time"

	"github.com/orgsync/orgsync/config"
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
// closed with who approved it. It returns the result of applying them.
//
// Once the approval is found pending and its organization is in j's run,
// every outcome but a dry run and a no is recorded and told as a run's
// (end): applied, or failed in any phase (the sources, the secret, the
// sign-in, the read, the gate, the apply, the record), the Result then
// carrying the error and its phase; a failure leaves the approval
// pending, with the attempt noted in it (Attempts). Before that (no
// state directory, no such pending approval, an organization --orgs
// leaves out) it is only an error, and the Result nil.
func (c *Control) Approve(ctx context.Context, j *run.Job, id string, v ApprovalView, o ApproveOptions) (*run.Result, error) {
	a, t, err := c.pending(j, id)
	if err != nil {
		return nil, err
	}
	v.Approval(a)
	start := time.Now()
	res, err := c.approve(ctx, j, a, v, o)
	if res == nil && run.Marked(err) {
		res = &run.Result{Org: t, Mode: run.Real, Run: run.RunID(start), Start: start, Elapsed: time.Since(start),
			Err: err, Phase: run.PhaseOf(err), Decision: run.Decision{Released: a}}
		c.Applied(res)
	}
	if res != nil && res.Err != nil {
		c.noteAttempt(a.ID, o.By, res)
	}
	return res, err
}

// pending reads approval id, which must be pending and of an
// organization of j's run.
func (c *Control) pending(j *run.Job, id string) (*store.Approval, *config.NamedTarget, error) {
	dir := c.StateDir()
	if dir == nil {
		return nil, nil, ErrNoStateDir
	}
	rec, err := dir.Recover(id)
	c.recovered(rec)
	if err != nil {
		return nil, nil, err
	}
	a, err := dir.Approval(id)
	if err != nil {
		return nil, nil, err
	}
	if a.Status != store.Pending {
		return nil, nil, fmt.Errorf("approval %s is %s already%s", a.ID, a.Status, decidedBy(a))
	}
	for _, t := range j.Orgs() {
		if t.Name == a.Org {
			return a, t, nil
		}
	}
	return nil, nil, fmt.Errorf("approval %s: organization %s is not in this run (--orgs)", a.ID, a.Org)
}

// approve plans a's organization afresh, shows what releasing a applies,
// asks, and applies it (see Approve). Its errors before applying are
// marked with their phase.
func (c *Control) approve(ctx context.Context, j *run.Job, a *store.Approval, v ApprovalView, o ApproveOptions) (*run.Result, error) {
	plans, err := j.Plan(ctx)
	if err != nil {
		return nil, err
	}
	p := orgPlan(plans, a.Org)
	g, err := j.Release(p, a.ID, o.By, run.Dry)
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
	g, err = j.Release(p, a.ID, o.By, run.Real)
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

// Pending returns the pending approvals, oldest first, once the
// interrupted applies are recovered (and told).
func (c *Control) Pending() ([]store.Approval, error) {
	dir := c.StateDir()
	if dir == nil {
		return nil, ErrNoStateDir
	}
	recs, err := dir.RecoverAll("")
	for i := range recs {
		c.recovered(&recs[i])
	}
	if err != nil {
		return nil, err
	}
	return dir.Approvals("", store.Pending)
}

// Standing is what a fresh plan says of a pending approval now: of its
// changes, Wanted the sources still ask for (approving applies them) and
// Dropped they no longer do (approving, or the next sync, leaves them
// out).
type Standing struct{ Wanted, Dropped int }

// Standings plans afresh with j (dry: nothing is written, sent or
// recorded) and says where each of pending stands now, by id; an
// approval of an organization j's run leaves out, or that could not be
// planned, has none. The error says why nothing could be planned.
func (c *Control) Standings(ctx context.Context, j *run.Job, pending []store.Approval) (map[string]Standing, error) {
	out := map[string]Standing{}
	if len(pending) == 0 {
		return out, nil
	}
	plans, err := j.Plan(ctx)
	if err != nil {
		return out, err
	}
	var failed []error
	for _, a := range pending {
		p := orgPlan(plans, a.Org)
		if p == nil {
			continue
		}
		g, err := j.Release(p, a.ID, store.Decider{}, run.Dry)
		if err != nil {
			failed = append(failed, fmt.Errorf("approval %s: %w", a.ID, err))
			continue
		}
		out[a.ID] = Standing{Wanted: len(g.OrgPlan().Plan.Changes), Dropped: len(g.Decision().Dropped)}
	}
	return out, errors.Join(failed...)
}
