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
	"time"

	"github.com/orgsync/orgsync/internal/atomicfile"
	"github.com/orgsync/orgsync/internal/planfile"
	"github.com/orgsync/orgsync/internal/state"
	"github.com/orgsync/orgsync/internal/statuspage"
)

// reviewDemo is demo --review: the change-control walk-through on the CSV
// example with a state directory and a removal limit of 1, so that its
// removals are held for approval.
type reviewDemo struct {
	serve time.Duration // how long to serve the status page (0: a snapshot file only)
}

// reviewReplace points the CSV example at a state directory beside it and
// limits its removals to 1.
var reviewReplace = []string{"maxRemovals: 50%", "maxRemovals: 1\n  onLimit: hold\nstate:\n  dir: state"}

// steps saves the plan, shows it, applies it (the removals are held),
// approves the approval, prints the history, and writes the report and the
// status page into dir.
func (r *reviewDemo) steps(ctx context.Context, io stdio, e *env, dir string) error {
	planPath := filepath.Join(dir, "plan.json")
	fmt.Fprintln(io.out, "\n== 1. orgsync plan --out plan.json: the plan, saved for review")
	e.keeper.fingerprints = true
	plans, err := e.printPlans(ctx, io.out, "text")
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
	if plans, err = e.checkSaved(ctx, f, time.Hour); err != nil {
		return err
	}
	reps, err := e.applyAll(ctx, plans, applyReal)
	for _, rep := range reps {
		e.printResult(io, rep, applyReal)
	}
	if err != nil {
		return err
	}
	if reps[0].held.created == nil {
		return errors.New("the demo's removals were not held for approval")
	}
	id := reps[0].held.created.ID
	fmt.Fprintf(io.out, "\n== 4. orgsync approve %s: re-checked against the organization, applied once\n", id)
	sd := e.stateDir()
	if err := e.approve(ctx, io, sd, id); err != nil {
		return err
	}
	fmt.Fprintln(io.out, "\n== 5. orgsync history: what changed, when and why")
	entries, err := sd.History(state.Filter{})
	if err != nil {
		return err
	}
	writeHistory(io, entries)
	return r.outputs(ctx, io, e, sd, dir)
}

// outputs writes the report and the status page and says where they are;
// with serve set it serves the page on loopback for that long.
func (r *reviewDemo) outputs(ctx context.Context, std stdio, e *env, sd *state.Dir, dir string) error {
	report := filepath.Join(dir, "report.html")
	if err := e.writeReport(report); err != nil {
		return err
	}
	status := func() statuspage.Status {
		runs, _ := sd.Runs(0)
		pending, _ := sd.Approvals("", state.Pending)
		return statuspage.Status{Now: time.Now().UTC(), Runs: runs, Pending: pending}
	}
	page := filepath.Join(dir, "status.html")
	if err := atomicfile.Write(page, func(w io.Writer) error { return statuspage.Write(w, status()) }); err != nil {
		return err
	}
	fmt.Fprintf(std.out, "\nReport: %s\nStatus page (as the daemon serves it): %s\nState directory: %s\nSaved plan: %s\n",
		report, page, sd.Path(), filepath.Join(dir, "plan.json"))
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

// keepDir is where demo --review keeps its files: a fresh directory
// beside the system's temporary files, left in place.
func keepDir() (string, error) { return os.MkdirTemp("", "orgsync-review-") }
