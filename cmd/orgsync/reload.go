package main

import (
	"context"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/notify"
)

// reloader keeps the daemon's configuration current: it is read again
// before each run and on SIGHUP; one that no longer loads leaves the last
// good one in use, and the problem shows on the status page, in the
// metrics and in a notification.
type reloader struct {
	orgs    string // the --orgs flag, applied to each configuration read
	ok      prometheus.Gauge
	reloads *prometheus.CounterVec
}

// initReload registers the reload metrics.
func (d *daemon) initReload(orgs string) {
	d.reload.orgs = orgs
	d.reload.ok = prometheus.NewGauge(prometheus.GaugeOpts{Name: "orgsync_config_loaded",
		Help: "1 when the configuration file loaded at the last attempt, 0 while the last good one is used instead."})
	d.reload.reloads = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "orgsync_config_reloads_total",
		Help: "Attempts to read the configuration again, by result (success, failure)."}, []string{"result"})
	d.metrics.reg.MustRegister(d.reload.ok, d.reload.reloads)
	d.reload.ok.Set(1)
}

// onSIGHUP reloads the configuration at each SIGHUP, between runs, until
// ctx ends.
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
				d.running.Lock()
				d.log.Info("SIGHUP: reading the configuration again")
				d.reloadConfig(ctx)
				d.running.Unlock()
			}
		}
	}()
}

// reloadConfig reads the configuration file again; the caller holds
// d.running. On success it is the daemon's configuration from now on;
// otherwise the last good one stays, and the problem is shown and, when
// it is new, notified.
func (d *daemon) reloadConfig(ctx context.Context) {
	cfg, err := config.Load(d.cfg.File)
	if err == nil {
		err = d.take(cfg)
	}
	if err == nil {
		d.reload.ok.Set(1)
		d.reload.reloads.WithLabelValues("success").Inc()
		if d.setProblem("") != "" {
			d.log.Info("the configuration loads again")
		}
		return
	}
	d.reload.ok.Set(0)
	d.reload.reloads.WithLabelValues("failure").Inc()
	problem := err.Error()
	d.log.Error("the configuration does not load: the last good one is used", zap.String("file", d.cfg.File), zap.Error(err))
	if d.setProblem(problem) == problem {
		return // told already
	}
	dsp, derr := d.dispatcher()
	if dsp == nil {
		if derr != nil {
			d.log.Error("notifications not sent", zap.Error(derr))
		}
		return
	}
	dsp.Send(ctx, &notify.Event{Kind: notify.ConfigError, Org: strings.Join(d.orgNames(), ", "), Time: time.Now().UTC(),
		Summary: "the configuration file " + d.cfg.File + " does not load; the daemon goes on with the last good one", Error: problem})
}

// take makes cfg the daemon's configuration, with the organizations of
// --orgs. What only a restart changes is logged.
func (d *daemon) take(cfg *config.Config) error {
	next := &env{cfg: cfg}
	selected, err := next.selectOrgs(d.reload.orgs)
	if err != nil {
		return err
	}
	if cfg.Schedule != d.cfg.Schedule || cfg.State != d.cfg.State || cfg.Logging != d.cfg.Logging {
		d.log.Warn("schedule, state and logging changes take effect at the next restart")
	}
	for _, w := range cfg.Warnings {
		d.log.Warn("configuration: "+w.Message, zap.String("key", w.Path), zap.Int("line", w.Line), zap.String("file", cfg.File))
	}
	d.cfg, d.selected = cfg, selected
	d.status.statusAuth.Store(&cfg.Status)
	return nil
}

// setProblem sets the configuration problem the status page shows and
// returns the one before.
func (d *daemon) setProblem(p string) string {
	d.status.mu.Lock()
	defer d.status.mu.Unlock()
	old := d.status.problem
	d.status.problem = p
	return old
}
