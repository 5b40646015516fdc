package main

import (
	"context"
	"encoding/json"
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
)

// runDaemon syncs on the configuration's schedule until SIGTERM or
// SIGINT, never two runs at once, and serves /healthz, /readyz, /metrics
// and the status page (/, /api/runs).
func runDaemon(ctx context.Context, io stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync daemon", flag.ContinueOnError)
	sf := addSetupFlags(fs)
	sf.addOrgsFlag(fs)
	runAtStart := fs.Bool("run-at-start", false, "run once at start (also schedule.runAtStart)")
	listen := fs.String("listen", "", "address of /healthz, /readyz and /metrics (default schedule.listen)")
	e, code, ok := sf.start(fs, args, io, 0, nil)
	if !ok {
		return code
	}
	sched, err := e.cfg.Schedule.Parse()
	if err != nil {
		return fail(io, fs.Name(), fmt.Errorf("schedule: %w", err))
	}
	if *listen == "" {
		*listen = e.cfg.Schedule.Listen
	}
	d := &daemon{env: e, metrics: newMetrics(), sched: sched}
	d.initStatus()
	d.initReload(sf.orgs)
	d.onSIGHUP(ctx)
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
	} else {
		d.logNextRun()
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
	sched   cron.Schedule
	running sync.Mutex                // held during a run
	started sync.WaitGroup            // the run at start, which the scheduler does not wait for
	ready   atomic.Bool               // serving and scheduling
	last    atomic.Pointer[runStatus] // the last finished run; nil before the first
	status  daemonStatus              // the status page's runs and problem
	reload  reloader                  // the configuration read again before each run
}

// runStatus is how the last run ended, as /healthz shows it.
type runStatus struct {
	Result string    `json:"result"` // success or failure
	End    time.Time `json:"end"`
	// Error says why the run failed (never a secret: errors carry none).
	Error string `json:"error,omitempty"`
}

// health is the body of /healthz.
type health struct {
	Status  string     `json:"status"` // always "ok": the process is serving and scheduling
	LastRun *runStatus `json:"lastRun"`
	NextRun time.Time  `json:"nextRun"`
}

// nextRun returns when the schedule runs next after now, in the
// schedule's time zone.
func (d *daemon) nextRun() time.Time {
	next := d.sched.Next(time.Now())
	if spec, ok := d.sched.(*cron.SpecSchedule); ok {
		next = next.In(spec.Location)
	}
	return next
}

// logNextRun logs when the next scheduled run is due, in the schedule's
// time zone.
func (d *daemon) logNextRun() {
	next := d.nextRun()
	d.log.Info("next run", zap.String("at", next.Format(time.RFC3339)), zap.String("in", time.Until(next).Round(time.Second).String()))
}

// serve starts serving /healthz, /readyz and /metrics on listen.
func (d *daemon) serve(listen string) (*http.Server, error) {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: d.mux(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	d.log.Info("daemon started", zap.String("schedule", d.cfg.Schedule.Cron), zap.String("timezone", d.cfg.Schedule.Timezone),
		zap.String("listen", ln.Addr().String()))
	return srv, nil
}

// runOnce syncs unless a run is already going on.
func (d *daemon) runOnce(ctx context.Context) {
	if ctx.Err() != nil {
		return // stopping
	}
	if !d.running.TryLock() {
		d.log.Warn("skipping a scheduled run: the previous run is still going")
		d.metrics.skipped(d.orgNames())
		return
	}
	defer d.running.Unlock()
	d.reloadConfig(ctx)
	reps, err := d.sync(ctx, applyReal)
	d.keepRuns()
	end := time.Now()
	d.metrics.observe(reps, err, end)
	st := &runStatus{Result: "success", End: end.UTC()}
	if err != nil {
		st.Result, st.Error = "failure", err.Error()
	}
	d.last.Store(st)
	if errors.Is(err, context.Canceled) {
		return // stopping
	}
	if err != nil {
		d.log.Error("run failed", zap.Error(err))
	}
	d.logNextRun()
}

// orgNames are the names of the organizations the daemon syncs.
func (d *daemon) orgNames() []string {
	names := make([]string, len(d.selected))
	for i, t := range d.selected {
		names[i] = t.Name
	}
	return names
}

// mux routes the health, readiness and metrics endpoints.
func (d *daemon) mux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(health{Status: "ok", LastRun: d.last.Load(), NextRun: d.nextRun().UTC()})
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !d.ready.Load() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	mux.Handle("/metrics", d.metrics.handler())
	mux.Handle("/", d.statusHandler())
	return mux
}
