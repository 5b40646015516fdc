package changecontrol

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/changecontrol/planfile"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/store"
)

// maxRunsKept is how many run records the daemon keeps for its status
// page.
const maxRunsKept = 200

// Daemon is change control for a daemon: its status page, its metrics of
// approvals and configuration, and the configuration read again before
// each run (Reload). A configuration that no longer loads leaves the last
// good one in use; the problem shows on the page, in the metrics and in
// one notification per new problem.
type Daemon struct {
	*Control
	file string
	ov   run.Overrides
	opts run.Options
	job  *run.Job // the last good configuration's
	// print is the fingerprint of the file the job was made from: while
	// it is the same, the runs keep the job (and its clients' tokens).
	print string

	mu      sync.Mutex
	cfg     *config.Config
	next    func() time.Time // when the daemon runs next; nil until it schedules
	runs    []store.Run
	problem string
	auth    atomic.Pointer[config.Status]
	// page is how the status page is served: where, in which time zone,
	// and how its decisions run (see page.go).
	page pageSetup

	pending *prometheus.GaugeVec
	loaded  prometheus.Gauge
	reloads *prometheus.CounterVec
}

// NewDaemon is the change control of a daemon running job, made from cfg
// (loaded from its file) with ov and opts (whose Observer is c).
func NewDaemon(c *Control, cfg *config.Config, job *run.Job, ov run.Overrides, opts run.Options) *Daemon {
	d := &Daemon{Control: c, file: cfg.File, ov: ov, opts: opts, job: job, cfg: cfg,
		pending: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "orgsync_pending_approvals",
			Help: "Approvals waiting for orgsync approve or reject, by organization."}, []string{"org"}),
		loaded: prometheus.NewGauge(prometheus.GaugeOpts{Name: "orgsync_config_loaded",
			Help: "1 when the configuration file loaded at the last attempt, 0 while the last good one is used instead."}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "orgsync_config_reloads_total",
			Help: "Attempts to read the configuration again, by result (success, failure)."}, []string{"result"}),
	}
	d.print, _ = planfile.FileFingerprint(cfg.File)
	d.page.zone = scheduleZone(cfg.Schedule)
	d.auth.Store(&cfg.Status)
	d.loaded.Set(1)
	if dir := c.StateDir(); dir != nil {
		runs, err := dir.Runs(maxRunsKept)
		if err != nil {
			c.log.Warn("the run records could not be read", zap.Error(err))
		}
		d.runs = runs
	}
	d.countPending()
	return d
}

// Collectors are the daemon's metrics of change control.
func (d *Daemon) Collectors() []prometheus.Collector {
	return []prometheus.Collector{d.pending, d.loaded, d.reloads}
}

// Reload reads the configuration file again, before a run or at SIGHUP,
// and returns the Job of the last configuration that loaded.
func (d *Daemon) Reload(ctx context.Context) *run.Job {
	fp, err := planfile.FileFingerprint(d.file)
	d.mu.Lock()
	same := err == nil && fp == d.print && d.problem == ""
	d.mu.Unlock()
	if same {
		d.BeginRun(d.job.Config())
		return d.job
	}
	cfg, err := config.Load(d.file)
	var job *run.Job
	restart := false
	if err == nil {
		d.mu.Lock()
		restart = cfg.Schedule != d.cfg.Schedule || cfg.State != d.cfg.State || cfg.Logging != d.cfg.Logging
		cfg.State = d.cfg.State // takes effect at the next restart: the runs keep one state directory
		d.mu.Unlock()
		job, err = run.New(cfg, d.ov, d.opts)
	}
	if err != nil {
		d.failed(err)
		d.BeginRun(d.job.Config())
		return d.job
	}
	d.loaded.Set(1)
	d.reloads.WithLabelValues("success").Inc()
	if restart {
		d.log.Warn("schedule, state and logging changes take effect at the next restart")
	}
	d.mu.Lock()
	old := d.problem
	d.cfg, d.problem, d.job, d.print = cfg, "", job, fp
	d.mu.Unlock()
	d.auth.Store(&cfg.Status)
	if old != "" {
		d.log.Info("the configuration loads again")
	}
	d.BeginRun(cfg)
	return job
}

// failed shows that the configuration does not load, and notifies a new
// problem.
func (d *Daemon) failed(err error) {
	d.loaded.Set(0)
	d.reloads.WithLabelValues("failure").Inc()
	d.log.Error("the configuration does not load: the last good one is used", zap.String("file", d.file), zap.Error(err))
	d.mu.Lock()
	old := d.problem
	d.problem = err.Error()
	d.mu.Unlock()
	if old != err.Error() {
		d.NotifyConfigError(d.file, d.job.OrgNames(), err)
	}
}

// Ran keeps the records of the run that ended for the status page, and
// counts the pending approvals again.
func (d *Daemon) Ran() {
	done := d.TakeRuns()
	d.mu.Lock()
	d.runs = append(d.runs, done...)
	if n := len(d.runs); n > maxRunsKept {
		d.runs = append([]store.Run(nil), d.runs[n-maxRunsKept:]...)
	}
	d.mu.Unlock()
	d.countPending()
}

// countPending sets the pending-approvals gauge of every organization.
func (d *Daemon) countPending() {
	pending := d.pendingApprovals()
	for _, name := range d.job.OrgNames() {
		n := 0
		for i := range pending {
			if pending[i].Org == name {
				n++
			}
		}
		d.pending.WithLabelValues(name).Set(float64(n))
	}
}

// Scheduled takes the daemon's word for when it runs next, for the status
// page (daemon.Options.Scheduled).
func (d *Daemon) Scheduled(next func() time.Time) {
	d.mu.Lock()
	d.next = next
	d.mu.Unlock()
}
