package main

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/state"
	"github.com/orgsync/orgsync/internal/statuspage"
)

// maxRunsKept is how many run records the daemon keeps for its status
// page.
const maxRunsKept = 200

// daemonStatus is what the daemon's status page shows beyond the
// schedule: the last runs, the configuration's problem, and the gauges of
// the pending approvals.
type daemonStatus struct {
	mu      sync.Mutex
	runs    []state.Run
	problem string
	pending *prometheus.GaugeVec
	// statusAuth is the configuration's status section, which a reload
	// replaces while the page is being served.
	statusAuth atomic.Pointer[config.Status]
}

// initStatus seeds the runs from the state directory and registers the
// pending-approvals gauge.
func (d *daemon) initStatus() {
	d.status.pending = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "orgsync_pending_approvals", Help: "Approvals waiting for orgsync approve or reject, by organization.",
	}, []string{"org"})
	d.metrics.reg.MustRegister(d.status.pending)
	d.status.statusAuth.Store(&d.cfg.Status)
	if dir := d.stateDir(); dir != nil {
		runs, err := dir.Runs(maxRunsKept)
		if err != nil {
			d.log.Warn("the run records could not be read", zap.Error(err))
		}
		d.status.runs = runs
	}
	d.countPending()
}

// keepRuns moves the records of the run that ended into the status page's
// list, and counts the pending approvals again.
func (d *daemon) keepRuns() {
	d.keeper.mu.Lock()
	done := d.keeper.done.Runs
	d.keeper.done.Runs, d.keeper.done.Entries = nil, nil // the daemon writes no --report
	d.keeper.mu.Unlock()
	d.status.mu.Lock()
	d.status.runs = append(d.status.runs, done...)
	if n := len(d.status.runs); n > maxRunsKept {
		d.status.runs = append([]state.Run(nil), d.status.runs[n-maxRunsKept:]...)
	}
	d.status.mu.Unlock()
	d.countPending()
}

// countPending sets the pending-approvals gauge of every organization.
func (d *daemon) countPending() {
	pending := d.pendingApprovals()
	for _, t := range d.selected {
		n := 0
		for i := range pending {
			if pending[i].Org == t.Name {
				n++
			}
		}
		d.status.pending.WithLabelValues(t.Name).Set(float64(n))
	}
}

// pendingApprovals lists the pending approvals (none without a state
// directory).
func (d *daemon) pendingApprovals() []state.Approval {
	dir := d.stateDir()
	if dir == nil {
		return nil
	}
	list, err := dir.Approvals("", state.Pending)
	if err != nil {
		d.log.Warn("the pending approvals could not be read", zap.Error(err))
	}
	return list
}

// statusNow is what the status page shows now.
func (d *daemon) statusNow() statuspage.Status {
	d.status.mu.Lock()
	s := statuspage.Status{Now: time.Now().UTC(), NextRun: d.nextRun().UTC(), Runs: append([]state.Run(nil), d.status.runs...),
		ConfigProblem: d.status.problem}
	d.status.mu.Unlock()
	s.Pending = d.pendingApprovals()
	if d.stateDir() == nil {
		s.StateNote = "state.dir is not set: the runs shown are this process's only; no history, run records or approvals are kept"
	}
	return s
}

// statusHandler serves the status page, protected by status.token or
// status.username and password when they are set (read at each request).
func (d *daemon) statusHandler() http.Handler {
	return statuspage.Protect(statuspage.Handler(d.statusNow), func() (string, string, string, error) {
		return d.status.statusAuth.Load().Secrets()
	})
}
