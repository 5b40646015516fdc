package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/orgsync/orgsync/internal/changecontrol"
	"github.com/orgsync/orgsync/internal/run"
)

// runSync applies the plans and prints what was done.
func runSync(ctx context.Context, io stdio, args []string) int {
	c := newRunCommand("sync", true)
	testOnly := c.fs.Bool("test-only", false, "send the requests with testOnly: the service validates them and changes nothing")
	reportFile := addReportFlag(c.fs)
	e, j, code, ok := c.start(io, args, true)
	if !ok {
		return code
	}
	if err := changecontrol.CheckReport(*reportFile); err != nil {
		return fail(io, c.fs.Name(), err)
	}
	mode := run.Real
	if *testOnly {
		mode = run.TestOnly
	}
	e.control.SetMode(mode)
	res, err := j.Sync(ctx, mode, showPlans(io, j.Config().MultiOrg()))
	for _, r := range res {
		e.printResult(io, r, j.Config().MultiOrg())
	}
	err = errors.Join(err, e.reportTo(io, *reportFile))
	if err != nil {
		return fail(io, c.fs.Name(), err)
	}
	return exitOK
}

// showPlans prints each plan as it is ready, a blank line between
// organizations (in the order they are ready; Sync shows one at a time).
func showPlans(io stdio, multiOrg bool) func(p *run.OrgPlan) error {
	shown := 0
	return func(p *run.OrgPlan) error {
		if shown++; shown > 1 {
			fmt.Fprintln(io.out)
		}
		return p.WriteText(io.out, multiOrg)
	}
}

// printResult writes the outcome of an organization's applied plan, its
// lines prefixed with the organization's name when there are several,
// and the approvals it holds.
func (e *env) printResult(io stdio, r *run.Result, multiOrg bool) {
	if r == nil || r.Applied == nil {
		return
	}
	defer e.printHeld(io, r, multiOrg)
	verb := "applied"
	if r.Mode == run.TestOnly {
		verb = "validated by the service (test only, nothing changed)"
	}
	if multiOrg {
		verb = r.Org.Name + ": " + verb
	}
	fmt.Fprintf(io.out, "%s: %s, %s, %s, %s; %s in all, %d answered 429, in %s\n",
		verb, plural(r.Applied.Requests, "request", "requests"), plural(r.Applied.Entries, "entry", "entries"),
		plural(r.Applied.Invites, "invite operation", "invite operations"), plural(len(r.Applied.Failures), "failure", "failures"),
		plural(r.Stats.Total(), "API request", "API requests"), r.Stats.TooManyRequests, r.Elapsed.Round(1e6))
	if n := r.Applied.Unverified; n > 0 {
		fmt.Fprintf(io.out, "  %s unverified: they need a user or group that an earlier request creates, which a test-only run does not\n", plural(n, "entry", "entries"))
	}
	for _, f := range r.Applied.Failures {
		fmt.Fprintf(io.out, "  failed: %s\n", f)
	}
}
