package main

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

	"github.com/orgsync/orgsync/internal/atomicfile"
	"github.com/orgsync/orgsync/internal/planfile"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/state"
	"github.com/orgsync/orgsync/internal/statuspage"
)

// reviewDemo is demo --review: the change-control walk-through on the CSV
// example with a state directory and a removal limit of 1, so that its
// removals are held for approval. Its files are kept in dir.
type reviewDemo struct {
	serve time.Duration // how long to serve the status page (0: a snapshot file only)
	dir   string
}

// prepare makes the directory the demo keeps and points the example's
// configuration at a state directory in it, with a removal limit of 1.
func (r *reviewDemo) prepare(config string) error {
	dir, err := os.MkdirTemp("", "orgsync-review-")
	if err != nil {
		return err
	}
	r.dir = dir
	data, err := os.ReadFile(config)
	if err != nil {
		return err
	}
	text := strings.Replace(string(data), "maxRemovals: 50%",
		fmt.Sprintf("maxRemovals: 1\n  onLimit: hold\nstate:\n  dir: %s", filepath.Join(dir, "state")), 1)
	return os.WriteFile(config, []byte(text), 0o600)
}

// steps saves the plan, shows it, applies it (the removals are held),
// approves the approval, prints the history, and writes the report and the
// status page.
func (r *reviewDemo) steps(ctx context.Context, io stdio, e *env) error {
	j, err := e.job(run.Overrides{}, true)
	if err != nil {
		return err
	}
	planPath := filepath.Join(r.dir, "plan.json")
	fmt.Fprintln(io.out, "\n== 1. orgsync plan --out plan.json: the plan, saved for review")
	e.control.KeepFingerprints()
	plans, err := printPlans(ctx, j, io.out, "text")
	if err != nil {
		return err
	}
	if err := e.savePlan(planPath, plans); err != nil {
		return err
	}
	fmt.Fprintln(io.out, "\n== 2. orgsync show plan.json: what the reviewer reads")
	f, err := planfile.Read(planPath)
	if err != nil {
		return err
	}
	if err := showText(io, f); err != nil {
		return err
	}
	fmt.Fprintln(io.out, "\n== 3. orgsync apply plan.json: exactly the reviewed plan; over maxRemovals 1, the removals are held")
	if plans, err = e.control.CheckSaved(ctx, j, f, time.Hour); err != nil {
		return err
	}
	res, err := j.ApplyAll(ctx, plans, run.Real)
	for _, rs := range res {
		e.printResult(io, rs, false)
	}
	if err != nil {
		return err
	}
	created := e.control.HeldIn(res[0].Org.Name).Created
	if created == nil {
		return errors.New("the demo's removals were not held for approval")
	}
	fmt.Fprintf(io.out, "\n== 4. orgsync approve %s: re-checked against the organization, applied once\n", created.ID)
	rs, err := e.control.Approve(ctx, j, created.ID, io.out)
	if rs != nil {
		e.printResult(io, rs, false)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(io.out, "\n== 5. orgsync history: what changed, when and why")
	sd := e.control.StateDir()
	entries, err := sd.History(state.Filter{})
	if err != nil {
		return err
	}
	writeHistory(io, entries)
	return r.outputs(ctx, io, e, sd)
}

// outputs writes the report and the status page and says where they are;
// with serve set it serves the page on loopback for that long.
func (r *reviewDemo) outputs(ctx context.Context, std stdio, e *env, sd *state.Dir) error {
	report := filepath.Join(r.dir, "report.html")
	if err := e.control.WriteReport(report); err != nil {
		return err
	}
	status := func() statuspage.Status {
		runs, _ := sd.Runs(0)
		pending, _ := sd.Approvals("", state.Pending)
		return statuspage.Status{Now: time.Now().UTC(), Runs: runs, Pending: pending}
	}
	page := filepath.Join(r.dir, "status.html")
	if err := atomicfile.Write(page, func(w io.Writer) error { return statuspage.Write(w, status()) }); err != nil {
		return err
	}
	fmt.Fprintf(std.out, "\nReport: %s\nStatus page (as the daemon serves it): %s\nState directory: %s\nSaved plan: %s\n",
		report, page, sd.Path(), filepath.Join(r.dir, "plan.json"))
	if r.serve <= 0 {
		fmt.Fprintln(std.out, "(orgsync demo --review --serve 5m serves the status page live on loopback)")
		return nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: statuspage.Handler(status), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	fmt.Fprintf(std.out, "Status page: http://%s/ for %s (Ctrl-C stops)\n", ln.Addr(), r.serve)
	select {
	case <-ctx.Done():
	case <-time.After(r.serve):
	}
	return srv.Close()
}
