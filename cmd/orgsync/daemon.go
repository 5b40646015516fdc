package main

import (
	"context"

	"github.com/orgsync/orgsync/internal/changecontrol"
	"github.com/orgsync/orgsync/internal/daemon"
	"github.com/orgsync/orgsync/internal/run"
)

// runDaemon syncs on the configuration's schedule until SIGTERM or
// SIGINT, never two runs at once, reading the configuration again before
// each run and at SIGHUP, and serves /healthz, /readyz, /metrics and the
// status page.
func runDaemon(ctx context.Context, io stdio, args []string) int {
	c := newRunCommand("daemon", false)
	runAtStart := c.fs.Bool("run-at-start", false, "run once at start (also schedule.runAtStart)")
	listen := c.fs.String("listen", "", "address of /healthz, /readyz, /metrics and the status page (default schedule.listen)")
	e, j, code, ok := c.start(io, args, false)
	if !ok {
		return code
	}
	cc := changecontrol.NewDaemon(e.control, e.cfg, j, run.Overrides{Orgs: e.orgs}, e.runOptions(false))
	addr := *listen
	if addr == "" {
		addr = e.cfg.Schedule.Listen
	}
	err := daemon.Run(ctx, j, e.cfg.Schedule, daemon.Options{Listen: addr, RunAtStart: *runAtStart, Log: e.log,
		Handler: cc.Handler(), Collectors: cc.Collectors(), Reload: cc.Reload, Ran: cc.Ran, Scheduled: cc.Scheduled,
		Exclusive: func(x func(fn func() ([]*run.Result, error)) error) { cc.Serve(addr, x) }})
	e.control.Wait()
	if err != nil {
		return fail(io, c.fs.Name(), err)
	}
	return exitOK
}
