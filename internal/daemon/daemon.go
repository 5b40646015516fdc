// Package daemon is orgsync daemon, in one place: it runs a Job on the
// configuration's schedule until its context ends, never two runs at
// once; reads the configuration again before each run and at SIGHUP,
// keeping the last one that loaded; serves /healthz, /readyz, /metrics
// (one Prometheus registry for every metric) and the status page, whose
// approve and reject decisions run as runs of its own, from one server
// whose connections are bounded in time and number (server.go). Change
// control (internal/changecontrol) hears the runs and decides the
// approvals; the page, its gate and its rendering are
// internal/daemon/statuspage.
package daemon

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robfig/cron/v3"
	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/changecontrol"
	"github.com/orgsync/orgsync/internal/changecontrol/planfile"
	"github.com/orgsync/orgsync/internal/daemon/statuspage"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/store"
)

// shutdownTimeout bounds the HTTP server's graceful shutdown.
const shutdownTimeout = 10 * time.Second

// Setup is what a daemon starts from.
type Setup struct {
	// Config is the configuration, loaded from its file (Config.File),
	// which the daemon reads again before each run and at SIGHUP.
	Config *config.Config
	// Overrides and RunOptions make the Job of each configuration;
	// RunOptions.Observer is Control and PlansShown is unset (the daemon
	// prints no plan, its changes are logged).
	Overrides  run.Overrides
	RunOptions run.Options
	// Control hears the runs and decides the approvals.
	Control    *changecontrol.Control
	Listen     string // address of the endpoints; "" takes schedule.listen
	RunAtStart bool   // run once at start (or schedule.runAtStart)
	Log        *zap.Logger
	// Reload, when set, reads the configuration again at each value, as
	// SIGHUP does (the Windows service's parameter-change control).
	Reload <-chan struct{}
}

// daemon is the state of a running daemon.
type daemon struct {
	control  *changecontrol.Control
	log      *zap.Logger
	schedule config.Schedule // the configuration's at start: changes take effect at the next restart
	listen   string          // the address asked for
	metrics  *metrics
	sched    cron.Schedule
	cron     *cron.Cron
	entry    cron.EntryID              // the scheduled run in cron
	running  sync.Mutex                // held during a run, a decision and a reload
	started  sync.WaitGroup            // the run at start, which the scheduler does not wait for
	ready    atomic.Bool               // serving and scheduling
	last     atomic.Pointer[RunStatus] // the last finished run; nil before the first

	// The configuration, read again before each run and at SIGHUP (see
	// reload.go).
	job  atomic.Pointer[run.Job] // the last good configuration's
	ov   run.Overrides
	opts run.Options
	file string
	// print is the fingerprint of the file the job was made from: while
	// it is the same, the runs keep the job (and its clients' tokens).
	print string
	// access is the status page's credentials and names, read at start
	// and with the configuration (see reload.go), never at a request.
	access atomic.Pointer[statuspage.Access]
	page   *statuspage.Page
	health atomic.Pointer[healthState] // what /healthz says to anyone
	// reloads is Setup.Reload.
	reloads <-chan struct{}

	mu      sync.Mutex
	cfg     *config.Config // the last good configuration
	problem string         // why the file does not load; "" when it does
	runs    []store.Run    // the last runs' records, oldest first, for the status page
}

// Run syncs on the schedule until ctx ends; a run in progress then stops
// between requests. It returns an error only when it cannot start (a
// configuration it cannot make a Job of, a bad schedule, an address it
// cannot listen on).
func Run(ctx context.Context, s Setup) error {
	d, err := newDaemon(s)
	if err != nil {
		return err
	}
	return d.run(ctx, s.RunAtStart || s.Config.Schedule.RunAtStart)
}

// newDaemon makes the Job of s.Config and parses its schedule; the runs
// kept for the status page start with the state directory's records.
func newDaemon(s Setup) (*daemon, error) {
	job, err := run.New(s.Config, s.Overrides, s.RunOptions)
	if err != nil {
		return nil, err
	}
	if s.Log == nil {
		s.Log = zap.NewNop()
	}
	d := &daemon{control: s.Control, log: s.Log, schedule: s.Config.Schedule, listen: s.Listen, metrics: newMetrics(),
		ov: s.Overrides, opts: s.RunOptions, file: s.Config.File, cfg: s.Config, reloads: s.Reload}
	if d.listen == "" {
		d.listen = d.schedule.Listen
	}
	d.job.Store(job)
	d.print, _ = planfile.FileFingerprint(d.file)
	access, err := d.readAccess(s.Config)
	if err != nil {
		return nil, fmt.Errorf("the status page: %w", err)
	}
	d.access.Store(access)
	d.page = d.newPage()
	d.health.Store(&healthState{since: time.Now().UTC()})
	d.metrics.loaded.Set(1)
	d.runs = d.storedRuns()
	d.countPending()
	if d.sched, err = d.schedule.Parse(); err != nil {
		return nil, fmt.Errorf("schedule: %w", err)
	}
	d.metrics.schedule(schedulePeriod(d.sched, time.Now()), func() time.Time { return d.nextRun(time.Now()) })
	return d, nil
}

// run schedules the runs and serves the endpoints until ctx ends.
func (d *daemon) run(ctx context.Context, runAtStart bool) error {
	d.cron = cron.New()
	d.entry = d.cron.Schedule(d.sched, cron.FuncJob(func() { d.runOnce(ctx) }))
	srv, err := d.serve()
	if err != nil {
		return err
	}
	d.onSIGHUP(ctx)
	d.cron.Start()
	d.warnOpen()
	if runAtStart {
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

// nextRun returns when the scheduler runs next, in the schedule's time
// zone, as of now. It asks the scheduler, not the schedule: "@every"
// counts from the last time the scheduler fired (a skipped or long run
// included), not from now; until the scheduler has placed its entry, the
// schedule says.
func (d *daemon) nextRun(now time.Time) time.Time {
	var next time.Time
	if d.cron != nil {
		next = d.cron.Entry(d.entry).Next
	}
	if next.IsZero() {
		next = d.sched.Next(now)
	}
	return next.In(d.location())
}

// logNextRun logs when the next scheduled run is due, in the schedule's
// time zone.
func (d *daemon) logNextRun() {
	next := d.nextRun(time.Now())
	d.log.Info("next run", zap.String("at", next.Format(time.RFC3339)), zap.String("in", time.Until(next).Round(time.Second).String()))
}

// location is the time zone the schedule runs in: schedule.timezone, the
// schedule's CRON_TZ, or the machine's local time. An @every schedule
// runs at fixed intervals in any zone, and shows its times in
// schedule.timezone.
func (d *daemon) location() *time.Location {
	if spec, ok := d.sched.(*cron.SpecSchedule); ok {
		return spec.Location
	}
	if loc, err := time.LoadLocation(d.schedule.Timezone); err == nil && d.schedule.Timezone != "" {
		return loc
	}
	return time.Local
}

// zone names the time zone the schedule runs in, with its abbreviation.
func (d *daemon) zone() string {
	loc := d.location()
	abbr, _ := time.Now().In(loc).Zone()
	if loc == time.Local {
		return fmt.Sprintf("local time of this machine (%s)", abbr)
	}
	return fmt.Sprintf("%s (%s)", loc, abbr)
}

// schedulePeriod is the shortest time between two of the schedule's runs
// after from (over its next 64 runs): a run longer than that overlaps the
// next.
func schedulePeriod(s cron.Schedule, from time.Time) time.Duration {
	var period time.Duration
	t := s.Next(from)
	for range 64 {
		n := s.Next(t)
		if n.IsZero() {
			break
		}
		if gap := n.Sub(t); period == 0 || gap < period {
			period = gap
		}
		t = n
	}
	return period
}
