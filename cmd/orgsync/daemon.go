package main

import (
	"context"

	"github.com/orgsync/orgsync/internal/daemon"
)

// runDaemon syncs on the configuration's schedule until SIGTERM or
// SIGINT, never two runs at once, and serves /healthz, /readyz and
// /metrics.
func runDaemon(ctx context.Context, io stdio, args []string) int {
	c := newRunCommand("daemon", false)
	runAtStart := c.fs.Bool("run-at-start", false, "run once at start (also schedule.runAtStart)")
	listen := c.fs.String("listen", "", "address of /healthz, /readyz and /metrics (default schedule.listen)")
	e, j, code, ok := c.start(io, args, false)
	if !ok {
		return code
	}
	err := daemon.Run(ctx, j, e.cfg.Schedule, daemon.Options{Listen: *listen, RunAtStart: *runAtStart, Log: e.log})
	if err != nil {
		return fail(io, c.fs.Name(), err)
	}
	return exitOK
}
