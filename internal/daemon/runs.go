package daemon

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/util/crash"
)

// maxRunsKept is how many run records the daemon keeps for its status
// page.
const maxRunsKept = 200

// errBusy is the error of a decision on the status page while a run goes
// on.
var errBusy = errors.New("a run is in progress: try again when it ends")

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
	start := d.metrics.started()
	res, err := d.syncGuarded(ctx)
	end := time.Now() // the sync's end: what follows (records, notifications) is not the run's
	d.ran()
	d.metrics.observe(res, err, end)
	st := &RunStatus{Result: "success", End: end.UTC()}
	if err != nil {
		st.Result, st.Error = "failure", err.Error()
	}
	d.ended(st, start)
	if errors.Is(err, context.Canceled) {
		return // stopping
	}
	if err != nil {
		d.log.Error("run failed", zap.Error(err))
	}
	d.logNextRun()
}

// exclusive runs fn (a decision on the status page) unless a run is going
// on, as a run: a panic in it is its error, its results go to the metrics
// and its records to the page.
func (d *daemon) exclusive(fn func() ([]*run.Result, error)) error {
	if !d.running.TryLock() {
		return errBusy
	}
	defer d.running.Unlock()
	d.metrics.started()
	var res []*run.Result
	var err error
	if e := crash.Run(func() { res, err = fn() }); e != nil {
		d.log.Error("a panic ended the run; its stack follows", zap.ByteString("stack", e.Stack))
		err = e
	}
	end := time.Now()
	d.ran()
	if len(res) > 0 {
		d.metrics.observe(res, err, end)
	} else {
		d.metrics.idle()
	}
	return err
}

// syncGuarded is one run, after reading the configuration again. A panic
// in it (a bug), raised here or turned into an error below, fails the run,
// not the daemon: it is logged with its stack, counted in the metrics, and
// the next run comes as scheduled.
func (d *daemon) syncGuarded(ctx context.Context) (res []*run.Result, err error) {
	if e := crash.Run(func() {
		j := d.reload()
		res, err = j.Sync(ctx, run.Real, nil)
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

// ran keeps the records of the run that ended for the status page, and
// counts the pending approvals again.
func (d *daemon) ran() {
	done := d.control.TakeRuns()
	d.mu.Lock()
	d.runs = append(d.runs, done...)
	if n := len(d.runs); n > maxRunsKept {
		d.runs = append([]store.Run(nil), d.runs[n-maxRunsKept:]...)
	}
	d.mu.Unlock()
	d.countPending()
}

// storedRuns are the last run records of the state directory (none
// without one; records that cannot be read are logged).
func (d *daemon) storedRuns() []store.Run {
	dir := d.control.StateDir()
	if dir == nil {
		return nil
	}
	runs, err := dir.Runs(maxRunsKept)
	if err != nil {
		d.log.Warn("the run records could not be read", zap.Error(err))
	}
	return runs
}

// countPending sets the pending-approvals gauges of every organization:
// how many, and since when the oldest.
func (d *daemon) countPending() {
	pending := d.control.PendingApprovals()
	d.metrics.pendingSince(d.job.Load().OrgNames(), pending)
	for _, name := range d.job.Load().OrgNames() {
		n := 0
		for i := range pending {
			if pending[i].Org == name {
				n++
			}
		}
		d.metrics.pending.WithLabelValues(name).Set(float64(n))
	}
}
