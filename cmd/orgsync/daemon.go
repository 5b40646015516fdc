package main

import (
	"context"

	"go.uber.org/zap/zapcore"

	"github.com/orgsync/orgsync/internal/daemon"
	"github.com/orgsync/orgsync/internal/run"
)

// runDaemon syncs on the configuration's schedule until SIGTERM or
// SIGINT, never two runs at once, reading the configuration again before
// each run and at SIGHUP, and serves /healthz, /readyz, /metrics and the
// status page.
func runDaemon(ctx context.Context, std stdio, args []string) int {
	return serveDaemon(ctx, std, args, nil, nil)
}

// serveDaemon is runDaemon, also reading the configuration again at each
// value of reload and logging to events too, when set (the Windows
// service's).
func serveDaemon(ctx context.Context, std stdio, args []string, reload <-chan struct{}, events zapcore.Core) int {
	c := newRunCommand("daemon", false)
	c.setup.log.tee = events
	runAtStart := c.fs.Bool("run-at-start", false, "run once at start (also schedule.runAtStart)")
	listen := c.fs.String("listen", "", "address of /healthz, /readyz, /metrics and the status page (default schedule.listen)")
	e, code, ok := c.setup.start(c.fs, args, std, c.maxArgs, c.output)
	if !ok {
		return code
	}
	err := daemon.Run(ctx, daemon.Setup{Config: e.cfg, Overrides: run.Overrides{Orgs: e.orgs}, RunOptions: e.runOptions(false),
		Control: e.control, Listen: *listen, RunAtStart: *runAtStart, Log: e.log, Reload: reload})
	return e.end(std, c.fs.Name(), err)
}
