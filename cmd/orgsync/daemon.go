package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robfig/cron/v3"
	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
)

// runDaemon syncs on the configuration's schedule until SIGTERM or
// SIGINT, never two runs at once, and serves /healthz, /readyz and
// /metrics.
func runDaemon(ctx context.Context, io stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync daemon", flag.ContinueOnError)
	sf := addSetupFlags(fs)
	runAtStart := fs.Bool("run-at-start", false, "run once at start (also schedule.runAtStart)")
	listen := fs.String("listen", "", "address of /healthz, /readyz and /metrics (default schedule.listen)")
	e, code, ok := sf.start(fs, args, io, 0, nil)
	if !ok {
		return code
	}
	sched, err := config.ParseSchedule(e.cfg.Schedule.Cron)
	if err != nil {
		return fail(io, fs.Name(), fmt.Errorf("schedule.cron: %w", err))
	}
	if *listen == "" {
		*listen = e.cfg.Schedule.Listen
	}
	d := &daemon{env: e, metrics: newMetrics()}
	srv, err := d.serve(*listen)
	if err != nil {
		return fail(io, fs.Name(), err)
	}
	c := cron.New()
	c.Schedule(sched, cron.FuncJob(func() { d.runOnce(ctx) }))
	c.Start()
	if *runAtStart || e.cfg.Schedule.RunAtStart {
		d.started.Add(1)
		go func() { defer d.started.Done(); d.runOnce(ctx) }()
	}
	d.ready.Store(true)
	<-ctx.Done()
	d.ready.Store(false)
	e.log.Info("stopping: a run in progress, if any, stops between requests")
	<-c.Stop().Done()
	d.started.Wait()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		e.log.Warn("metrics server shutdown", zap.Error(err))
	}
	e.log.Info("daemon stopped")
	return exitOK
}

// daemon is the state of a running daemon.
type daemon struct {
	*env
	metrics *metrics
	running sync.Mutex     // held during a run
	started sync.WaitGroup // the run at start, which the scheduler does not wait for
	ready   atomic.Bool    // serving and scheduling
}

// serve starts serving /healthz, /readyz and /metrics on listen.
func (d *daemon) serve(listen string) (*http.Server, error) {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: d.mux(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	d.log.Info("daemon started", zap.String("schedule", d.cfg.Schedule.Cron), zap.String("listen", ln.Addr().String()))
	return srv, nil
}

// runOnce syncs unless a run is already going on.
func (d *daemon) runOnce(ctx context.Context) {
	if ctx.Err() != nil {
		return // stopping
	}
	if !d.running.TryLock() {
		d.log.Warn("skipping a scheduled run: the previous run is still going")
		d.metrics.runs.WithLabelValues("skipped").Inc()
		return
	}
	defer d.running.Unlock()
	rep, err := d.sync(ctx, applyReal)
	d.metrics.observe(rep, err, time.Now())
	if err != nil && !errors.Is(err, context.Canceled) {
		d.log.Error("run failed", zap.Error(err))
	}
}

// mux routes the health, readiness and metrics endpoints.
func (d *daemon) mux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !d.ready.Load() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	mux.Handle("/metrics", d.metrics.handler())
	return mux
}
