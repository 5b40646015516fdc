package daemon

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/changecontrol/planfile"
	"github.com/orgsync/orgsync/internal/daemon/statuspage"
	"github.com/orgsync/orgsync/internal/run"
)

// reload reads the configuration file again, before a run or at SIGHUP
// (the caller holds d.running), and returns the Job of the last
// configuration that loaded, which the runs use from then on; the status
// page's secrets are read again each time. A file
// that no longer loads leaves the last good configuration in use; the
// problem shows on the status page, in the metrics and in one
// notification per new problem.
func (d *daemon) reload() *run.Job {
	fp, err := planfile.FileFingerprint(d.file)
	d.mu.Lock()
	same, cur := err == nil && fp == d.print && d.problem == "", d.cfg
	d.mu.Unlock()
	if same {
		d.readAccessAgain(cur)
		return d.begin(d.job.Load())
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
	var access *statuspage.Access
	if err == nil {
		access, err = d.readAccess(cfg)
	}
	if err != nil {
		d.failed(err)
		return d.begin(d.job.Load())
	}
	d.metrics.loaded.Set(1)
	d.metrics.reloads.WithLabelValues("success").Inc()
	if restart {
		d.log.Warn("schedule, state and logging changes take effect at the next restart")
	}
	d.mu.Lock()
	old := d.problem
	d.cfg, d.problem, d.print = cfg, "", fp
	d.mu.Unlock()
	d.job.Store(job)
	d.access.Store(access)
	if old != "" {
		d.log.Info("the configuration loads again")
	}
	return d.begin(job)
}

// readAccessAgain reads the status page's secrets of cfg again (a
// rotated token or password applies from the next run, or at SIGHUP); one
// that cannot be read keeps the last ones, and shows as a problem of the
// configuration.
func (d *daemon) readAccessAgain(cfg *config.Config) {
	access, err := d.readAccess(cfg)
	if err != nil {
		d.failed(fmt.Errorf("the status page keeps its last credentials: %w", err))
		return
	}
	d.access.Store(access)
}

// begin tells change control that the next run is job's, made from the
// last good configuration, and returns job.
func (d *daemon) begin(job *run.Job) *run.Job {
	d.mu.Lock()
	cfg := d.cfg
	d.mu.Unlock()
	d.control.BeginRun(cfg)
	return job
}

// failed shows that the configuration does not load, and notifies a new
// problem.
func (d *daemon) failed(err error) {
	d.metrics.loaded.Set(0)
	d.metrics.reloads.WithLabelValues("failure").Inc()
	d.log.Error("the configuration does not load: the last good one is used", zap.String("file", d.file), zap.Error(err))
	d.mu.Lock()
	old := d.problem
	d.problem = err.Error()
	d.mu.Unlock()
	if old != err.Error() {
		d.control.NotifyConfigError(d.file, d.job.Load().OrgNames(), err)
	}
}

// onSIGHUP reloads at each SIGHUP (and each value of d.reloads), between
// runs, until ctx ends.
func (d *daemon) onSIGHUP(ctx context.Context) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		defer signal.Stop(hup)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
			case <-d.reloads:
			}
			if !d.running.TryLock() {
				d.log.Info("SIGHUP: a run is in progress; the configuration is read again when it ends")
				d.running.Lock()
			}
			d.log.Info("SIGHUP: reading the configuration again")
			d.reload()
			d.running.Unlock()
		}
	}()
}
