// Package daemon runs a Job on the configuration's schedule until its
// context ends, never two runs at once, and serves /healthz, /readyz,
// /metrics and what Options.Handler serves (the status page).
package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/robfig/cron/v3"
	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/util/crash"
	"github.com/orgsync/orgsync/internal/util/listenaddr"
)

// shutdownTimeout bounds the HTTP server's graceful shutdown.
const shutdownTimeout = 10 * time.Second

// Options are what the command line says over the schedule section, and
// the hooks of change control.
type Options struct {
	Listen     string // address of the endpoints; "" takes schedule.listen
	RunAtStart bool   // run once at start (or schedule.runAtStart)
	Log        *zap.Logger
	// Handler, when set, serves the paths the daemon does not (the status
	// page); Collectors are registered with its metrics.
	Handler    http.Handler
	Collectors []prometheus.Collector
	// Reload, when set, is called before each run and at SIGHUP (between
	// runs); it returns the Job the runs use from then on.
	Reload func(ctx context.Context) *run.Job
	// Ran, when set, is called after each run.
	Ran func()
	// Scheduled, when set, is given once the schedule starts the function
	// that says when the next run is due (what /healthz shows).
	Scheduled func(next func() time.Time)
	// Exclusive, when set, is given once the schedule starts the function
	// that runs fn (an approval decided on the status page) as a run of
	// the daemon's own: never beside another (it fails with ErrBusy while
	// one goes on), its results in the metrics, Ran called after it.
	Exclusive func(runExclusive func(fn func() ([]*run.Result, error)) error)
}

// ErrBusy is the error of an exclusive run while another run goes on.
var ErrBusy = errors.New("a run is in progress: try again when it ends")

// daemon is the state of a running daemon.
type daemon struct {
	job     atomic.Pointer[run.Job]
	opts    Options
	log     *zap.Logger
	cfg     config.Schedule
	metrics *metrics
	sched   cron.Schedule
	cron    *cron.Cron
	entry   cron.EntryID              // the scheduled run in cron
	running sync.Mutex                // held during a run
	started sync.WaitGroup            // the run at start, which the scheduler does not wait for
	ready   atomic.Bool               // serving and scheduling
	last    atomic.Pointer[RunStatus] // the last finished run; nil before the first
}

// Run syncs job (made with Options.PlansShown unset: the daemon prints no
// plan, its changes are logged) on the schedule until ctx ends; a run in
// progress then stops between requests. It returns an error only when it
// cannot start (a bad schedule, an address it cannot listen on).
func Run(ctx context.Context, job *run.Job, sched config.Schedule, opts Options) error {
	cs, err := sched.Parse()
	if err != nil {
		return fmt.Errorf("schedule: %w", err)
	}
	if opts.Listen == "" {
		opts.Listen = sched.Listen
	}
	if opts.Log == nil {
		opts.Log = zap.NewNop()
	}
	d := &daemon{opts: opts, log: opts.Log, cfg: sched, metrics: newMetrics(), sched: cs}
	d.job.Store(job)
	d.metrics.reg.MustRegister(opts.Collectors...)
	d.cron = cron.New()
	d.entry = d.cron.Schedule(cs, cron.FuncJob(func() { d.runOnce(ctx) }))
	d.onSIGHUP(ctx)
	srv, err := d.serve(opts.Listen)
	if err != nil {
		return err
	}
	d.cron.Start()
	if opts.Scheduled != nil {
		opts.Scheduled(d.nextRun)
	}
	if opts.Exclusive != nil {
		opts.Exclusive(d.exclusive)
	}
	if opts.RunAtStart || sched.RunAtStart {
		d.started.Add(1)
		go func() { defer d.started.Done(); d.runOnce(ctx) }()
	} else {
		d.logNextRun()
	}
	d.ready.Store(true)
	<-ctx.Done()
	d.ready.Store(false)
	d.log.Info("stopping: a run in progress, if any, stops between requests")
	<-d.cron.Stop().Done()
	d.started.Wait()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		d.log.Warn("metrics server shutdown", zap.Error(err))
	}
	d.log.Info("daemon stopped")
	return nil
}

// RunStatus is how the last run ended, as /healthz shows it.
type RunStatus struct {
	Result string    `json:"result"` // success or failure
	End    time.Time `json:"end"`
	// Error says why the run failed (never a secret: errors carry none).
	Error string `json:"error,omitempty"`
}

// Health is the body of /healthz.
type Health struct {
	Status  string     `json:"status"` // always "ok": the process is serving and scheduling
	LastRun *RunStatus `json:"lastRun"`
	NextRun time.Time  `json:"nextRun"`
}

// nextRun returns when the scheduler runs next, in the schedule's time
// zone. It asks the scheduler, not the schedule: "@every" counts from the
// last time the scheduler fired (a skipped or long run included), not from
// now; until the scheduler has placed its entry, the schedule says.
func (d *daemon) nextRun() time.Time {
	var next time.Time
	if d.cron != nil {
		next = d.cron.Entry(d.entry).Next
	}
	if next.IsZero() {
		next = d.sched.Next(time.Now())
	}
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
		return nil, listenaddr.Explain("/healthz, /readyz and /metrics", listen, "schedule.listen (or --listen)", err)
	}
	srv := &http.Server{Handler: d.mux(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	d.log.Info("daemon started", zap.String("schedule", d.cfg.Cron), zap.String("timezone", d.zone()),
		zap.String("listen", ln.Addr().String()))
	return srv, nil
}

// zone names the time zone the schedule runs in: schedule.timezone, the
// schedule's CRON_TZ, or the machine's local time, with its abbreviation.
func (d *daemon) zone() string {
	loc := time.Local
	if spec, ok := d.sched.(*cron.SpecSchedule); ok {
		loc = spec.Location
	}
	abbr, _ := time.Now().In(loc).Zone()
	if loc == time.Local {
		return fmt.Sprintf("local time of this machine (%s)", abbr)
	}
	return fmt.Sprintf("%s (%s)", loc, abbr)
}

// runOnce syncs unless a run is already going on.
func (d *daemon) runOnce(ctx context.Context) {
	if ctx.Err() != nil {
		return // stopping
	}
	if !d.running.TryLock() {
		d.log.Warn("skipping a scheduled run: the previous run is still going")
		d.metrics.skipped(d.job.Load().OrgNames())
		return
	}
	defer d.running.Unlock()
	res, err := d.syncGuarded(ctx)
	end := time.Now() // the sync's end: what follows (records, notifications) is not the run's
	if d.opts.Ran != nil {
		d.opts.Ran()
	}
	d.metrics.observe(res, err, end)
	st := &RunStatus{Result: "success", End: end.UTC()}
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

// exclusive runs fn unless a run is going on, as a run: a panic in it is
// its error, its results go to the metrics, and Ran is called after it.
func (d *daemon) exclusive(fn func() ([]*run.Result, error)) error {
	if !d.running.TryLock() {
		return ErrBusy
	}
	defer d.running.Unlock()
	var res []*run.Result
	var err error
	if e := crash.Run(func() { res, err = fn() }); e != nil {
		d.log.Error("a panic ended the run; its stack follows", zap.ByteString("stack", e.Stack))
		err = e
	}
	end := time.Now()
	if d.opts.Ran != nil {
		d.opts.Ran()
	}
	if len(res) > 0 {
		d.metrics.observe(res, err, end)
	}
	return err
}

// syncGuarded is one run, after reading the configuration again. A panic
// in it (a bug), raised here or turned into an error below, fails the run,
// not the daemon: it is logged with its stack, counted in the metrics, and
// the next run comes as scheduled.
func (d *daemon) syncGuarded(ctx context.Context) (res []*run.Result, err error) {
	if e := crash.Run(func() {
		d.reload(ctx)
		res, err = d.job.Load().Sync(ctx, run.Real, nil)
	}); e != nil {
		err = e
	}
	var e *crash.Error
	if errors.As(err, &e) {
		d.log.Error("a panic ended the run; its stack follows", zap.ByteString("stack", e.Stack))
		d.metrics.panics.Inc()
	}
	return res, err
}

// mux routes the health, readiness and metrics endpoints.
func (d *daemon) mux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(Health{Status: "ok", LastRun: d.last.Load(), NextRun: d.nextRun().UTC()})
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !d.ready.Load() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	mux.Handle("/metrics", d.metrics.handler())
	if d.opts.Handler != nil {
		mux.Handle("/", d.opts.Handler)
	}
	return mux
}

// reload takes the Job of Options.Reload; the caller holds d.running.
func (d *daemon) reload(ctx context.Context) {
	if d.opts.Reload != nil {
		d.job.Store(d.opts.Reload(ctx))
	}
}

// onSIGHUP reloads at each SIGHUP, between runs, until ctx ends.
func (d *daemon) onSIGHUP(ctx context.Context) {
	if d.opts.Reload == nil {
		return
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		defer signal.Stop(hup)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				if !d.running.TryLock() {
					d.log.Info("SIGHUP: a run is in progress; the configuration is read again when it ends")
					d.running.Lock()
				}
				d.log.Info("SIGHUP: reading the configuration again")
				d.reload(ctx)
				d.running.Unlock()
			}
		}
	}()
}
