package changecontrol

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/util/plural"
	"github.com/orgsync/orgsync/reconcile"
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

// Approve shows approval id on w, plans its organization afresh with j
// (made with c as its observer), shows the held changes the fresh plan
// still wants, and, unless a dry run or the approver says no, has the
// safety gate release them: they are applied, once, and the approval is
// closed with who approved it. It returns the result of applying them
// (nil when nothing was applied).
func (c *Control) Approve(ctx context.Context, j *run.Job, id string, w io.Writer, o ApproveOptions) (*run.Result, error) {
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
	fmt.Fprintf(w, "approval %s, organization %s, held %s: %s\n", a.ID, a.Org, a.Created.Format(time.RFC3339), a.Reason)
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
	applies := showRelease(w, g)
	if o.DryRun {
		fmt.Fprintln(w, "dry run: nothing applied; the approval stays pending")
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

// showRelease writes what a release applies and what it leaves out, and
// reports whether it applies anything.
func showRelease(w io.Writer, g *run.Gated) bool {
	d := g.Decision()
	for i := range d.Dropped {
		fmt.Fprintf(w, "no longer asked for by the sources, left out: %s\n", d.Dropped[i].String())
	}
	changes := g.OrgPlan().Plan.Changes
	if len(changes) == 0 {
		fmt.Fprintln(w, "nothing left to apply: approving drops the approval")
		return false
	}
	fmt.Fprintf(w, "approving applies %s:\n", plural.Of(len(changes), "change", "changes"))
	for i := range changes {
		fmt.Fprintf(w, "  %s\n", changes[i].String())
	}
	return true
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

// Show writes an approval and its changes.
func Show(w io.Writer, a *store.Approval) {
	fmt.Fprintf(w, "approval %s, organization %s, held %s: %s\n", a.ID, a.Org, a.Created.Format(time.RFC3339), a.Reason)
	writeChanges(w, a.Changes)
}

func writeChanges(w io.Writer, changes []reconcile.Change) {
	for i := range changes {
		fmt.Fprintf(w, "  %s\n", changes[i].String())
	}
}

// List writes the pending approvals, each with the changes it holds now
// (a later run may have narrowed it) and the limit's reason when it was
// held.
func (c *Control) List(w io.Writer) error {
	dir := c.StateDir()
	if dir == nil {
		return ErrNoStateDir
	}
	list, err := dir.Approvals("", store.Pending)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintln(w, "no pending approvals")
	}
	for _, a := range list {
		fmt.Fprintf(w, "%s  %s  organization %s: %s held%s (when held: %s)\n", a.ID, a.Created.Format(time.RFC3339), a.Org,
			plural.Of(len(a.Changes), "change", "changes"), narrowings(&a), a.Reason)
	}
	return nil
}

// narrowings says how many changes later runs took out of a, after a
// comma; empty when none.
func narrowings(a *store.Approval) string {
	n := 0
	for _, x := range a.Narrowed {
		n += len(x.Dropped)
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %s no longer asked for dropped since", plural.Of(n, "change", "changes"))
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
	for _, a := range r.Decision.Pending {
		fmt.Fprintf(w, "%sheld for approval: %s, %s (review it with orgsync approve %[2]s, or discard it with orgsync reject %[2]s)\n",
			prefix, a.ID, plural.Of(len(a.Changes), "change", "changes"))
	}
}
