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
		e.control.WriteResult(io.out, r, j.Config().MultiOrg())
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
