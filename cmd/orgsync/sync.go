package main

import (
	"context"

	"github.com/orgsync/orgsync/internal/changecontrol"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/view"
)

// runSync applies the plans and prints what was done.
func runSync(ctx context.Context, std stdio, args []string) int {
	c := newRunCommand("sync", true)
	c.addFullFlag()
	testOnly := c.fs.Bool("test-only", false, "send the requests with testOnly: the service validates them and changes nothing")
	c.setup.addReportFlag(c.fs)
	e, code, ok := c.setup.start(c.fs, args, std, 0, nil)
	if !ok {
		return code
	}
	mode := run.Real
	if *testOnly {
		mode = run.TestOnly
		e.control.For(changecontrol.ModeTestOnly)
	}
	j, err := c.job(e, true)
	if err != nil {
		return fail(std, c.fs.Name(), run.InPhase(run.PhaseConfig, err))
	}
	multi := j.MultiOrg()
	res, err := j.Sync(ctx, mode, view.PlansAsReady(std.out, multi))
	view.Results(std.out, res, multi)
	return e.end(std, c.fs.Name(), err)
}
