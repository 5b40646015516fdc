// Package steps is the steps `orgsync demo` shows on a running demo
// (internal/demo): plan, sync and plan again (Walk), or change control's
// review of a saved plan, held removals, approval, history, report and
// status page (Review).
package steps

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/changecontrol"
	"github.com/orgsync/orgsync/internal/changecontrol/planfile"
	"github.com/orgsync/orgsync/internal/daemon/statuspage"
	"github.com/orgsync/orgsync/internal/demo"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/util/atomicfile"
	"github.com/orgsync/orgsync/internal/view"
)

// Walk plans, syncs and plans again with j (heard by c), writing each step
// to w; it fails when the second plan is not empty.
func Walk(ctx context.Context, w io.Writer, j *run.Job, c *changecontrol.Control) error {
	multi := j.MultiOrg()
	view.DemoStep(w, 1, "orgsync plan: what a sync would change")
	plans, err := showPlans(ctx, w, j)
	if err != nil {
		return err
	}
	view.DemoStep(w, 2, "orgsync sync: apply it")
	res, err := j.ApplyAll(ctx, plans, run.Real)
	view.Results(w, res, multi)
	if err != nil {
		return err
	}
	view.DemoStep(w, 3, "orgsync plan again: nothing left to do")
	again, err := showPlans(ctx, w, j)
	if err != nil {
		return err
	}
	for _, p := range again.Orgs {
		if p.Err != nil {
			return p.Err
		}
		if !p.Plan.Empty() {
			return fmt.Errorf("the second plan of %s is not empty: the sync did not converge", p.Org.Name)
		}
	}
	return nil
}

// showPlans plans with j and writes the plans to w as orgsync plan does.
func showPlans(ctx context.Context, w io.Writer, j *run.Job) (*run.Plans, error) {
	plans, err := j.Plan(ctx)
	if err != nil {
		return nil, err
	}
	return plans, view.Plans(w, plans, "text", j.MultiOrg())
}

// Review is demo --review: the change-control walk-through on the CSV
// example with a state directory and a removal limit of 1, so that its
// removals are held for approval. Its files are kept in a directory of
// their own, which Prepare makes.
type Review struct {
	Serve   time.Duration // how long to serve the status page (0: a snapshot file only)
	Version string        // the tool's version, written into the saved plan
	dir     string
}

// Prepare makes the directory the demo keeps and points the example's
// configuration at a state directory in it, with a removal limit of 1.
func (r *Review) Prepare(config string) error {
	dir, err := os.MkdirTemp("", "orgsync-review-")
	if err != nil {
		return err
	}
	r.dir = dir
	data, err := os.ReadFile(config)
	if err != nil {
		return err
	}
	text := strings.NewReplacer("maxRemovals: 50%", "maxRemovals: 1\n  onLimit: hold",
		demo.StateSection, fmt.Sprintf("state:\n  dir: %s\n", filepath.Join(dir, "state"))).Replace(string(data))
	return os.WriteFile(config, []byte(text), 0o600)
}

// Steps saves the plan, shows it, applies it (the removals are held),
// approves the approval, prints the history, and writes the report and the
// status page, each step to w; j is the run of the prepared configuration,
// heard by c.
func (r *Review) Steps(ctx context.Context, w io.Writer, j *run.Job, c *changecontrol.Control) error {
	planPath := filepath.Join(r.dir, "plan.json")
	view.DemoStep(w, 1, "orgsync plan --out plan.json: the plan, saved for review")
	c.KeepFingerprints()
	plans, err := showPlans(ctx, w, j)
	if err != nil {
		return err
	}
	if err := c.SavePlan(planPath, r.Version, plans, planfile.Flags{}); err != nil {
		return err
	}
	view.DemoStep(w, 2, "orgsync show plan.json: what the reviewer reads")
	f, err := planfile.Read(planPath)
	if err != nil {
		return err
	}
	if err := view.SavedPlan(w, f, view.FormatText, time.Now()); err != nil {
		return err
	}
	view.DemoStep(w, 3, "orgsync apply plan.json: exactly the reviewed plan; over maxRemovals 1, the removals are held")
	if plans, err = c.CheckSaved(ctx, j, f, time.Hour); err != nil {
		return err
	}
	res, err := j.ApplyAll(ctx, plans, run.Real)
	for _, rs := range res {
		view.Result(w, rs, false)
	}
	if err != nil {
		return err
	}
	created := res[0].Decision.Created
	if created == nil {
		return errors.New("the demo's removals were not held for approval")
	}
	view.DemoStep(w, 4, "orgsync approve "+created.ID+" --yes: re-checked against the organization, applied once")
	rs, err := c.Approve(ctx, j, created.ID, view.Approving{W: w}, changecontrol.ApproveOptions{By: changecontrol.Approver("demo", "orgsync demo --review")})
	view.Result(w, rs, false)
	if err != nil {
		return err
	}
	view.DemoStep(w, 5, "orgsync history: what changed, when and why")
	sd := c.StateDir()
	entries, err := sd.History(store.Filter{})
	if err != nil {
		return err
	}
	if err := view.History(w, entries, view.FormatText); err != nil {
		return err
	}
	return r.outputs(ctx, w, c, sd)
}

// outputs writes the report and the status page and says where they are;
// with Serve set it serves the page on loopback for that long.
func (r *Review) outputs(ctx context.Context, w io.Writer, c *changecontrol.Control, sd *store.Dir) error {
	report := filepath.Join(r.dir, "report.html")
	if err := c.WriteReport(report); err != nil {
		return err
	}
	status := func() statuspage.Status {
		runs, _ := sd.Runs(0)
		pending, _ := sd.Approvals("", store.Pending)
		return statuspage.Status{Now: time.Now().UTC(), Runs: runs, Pending: pending}
	}
	page := filepath.Join(r.dir, "status.html")
	if err := atomicfile.Write(page, func(w io.Writer) error { return statuspage.Write(w, status()) }); err != nil {
		return err
	}
	view.DemoReview(w, view.ReviewFiles{Report: report, StatusPage: page, StateDir: sd.Path(), SavedPlan: filepath.Join(r.dir, "plan.json")})
	if r.Serve <= 0 {
		view.DemoServing(w, "", 0)
		return nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: statuspage.Handler(status, nil), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	view.DemoServing(w, ln.Addr().String(), r.Serve)
	select {
	case <-ctx.Done():
	case <-time.After(r.Serve):
	}
	return srv.Close()
}
