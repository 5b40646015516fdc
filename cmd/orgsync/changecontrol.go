package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/approval"
	"github.com/orgsync/orgsync/internal/atomicfile"
	"github.com/orgsync/orgsync/internal/report"
	"github.com/orgsync/orgsync/internal/state"
	"github.com/orgsync/orgsync/reconcile"
)

// stateKeeper opens the state directory (state.dir) once, when a command
// first needs it, and collects what this process's runs did for the
// --report file.
type stateKeeper struct {
	once sync.Once
	dir  *state.Dir
	mu   sync.Mutex
	done report.Report
	// fingerprints asks the plans for the fingerprints a saved plan
	// keeps (plan --out, apply FILE).
	fingerprints bool
}

// stateDir returns the open state directory, or nil when state.dir is not
// set or cannot be opened; either is logged once, with what is not kept.
func (e *env) stateDir() *state.Dir {
	e.keeper.once.Do(func() {
		s := e.cfg.State
		if s.Dir == "" {
			e.log.Warn("state.dir is not set: no history of applied changes and no run records are kept, " +
				"and changes a safety limit holds cannot wait for approval (the run fails instead)")
			return
		}
		dir, err := state.Open(s.Dir, state.Options{MaxFileBytes: int64(s.MaxFileMB) << 20, Retention: s.Retention})
		if err != nil {
			e.log.Error("state directory unusable: no history, run records or approvals are kept", zap.Error(err))
			return
		}
		e.keeper.dir = dir
	})
	return e.keeper.dir
}

// runID names the run that started at start; the organizations of one
// run share it.
func runID(start time.Time) string { return start.UTC().Format("20060102T150405.000Z") }

// holdOrStop applies safety.onLimit to organization p's plan before a real
// run applies it. With a state directory it first drops from the pending
// approvals what the plan no longer wants. When a safety limit tripped:
// stop returns an error (nothing is to be applied); hold keeps the
// withheld changes no approval holds yet as a new pending approval and
// clears the plan's safety stop, so that the rest is applied and the run
// succeeds.
func (e *env) holdOrStop(p *planned, mode applyMode) (heldChanges, error) {
	var out heldChanges
	if mode != applyReal {
		return out, nil
	}
	tripped := approval.LimitTripped(p.plan)
	if tripped && e.cfg.SafetyOf(p.org).OnLimit == config.OnLimitStop {
		return out, fmt.Errorf("%w; safety.onLimit is stop: nothing applied", p.plan.Safety)
	}
	dir := e.stateDir()
	if dir == nil {
		return out, nil
	}
	pending, err := e.narrowPending(dir, p)
	out.pending = ids(pending)
	if err != nil || !tripped {
		return out, err
	}
	var held [][]reconcile.Change
	for i := range pending {
		held = append(held, pending[i].Changes)
	}
	if fresh := approval.Uncovered(p.plan.Withheld, held...); len(fresh) > 0 {
		now := time.Now().UTC()
		a := state.Approval{ID: state.NewID(), Org: p.org.Name, Created: now, Updated: now, Run: runID(p.start),
			Reason: p.plan.Safety.Reason, Status: state.Pending, Changes: fresh}
		if err := dir.SaveApproval(&a); err != nil {
			return out, fmt.Errorf("holding the withheld changes for approval: %w", err)
		}
		p.log.Warn("safety limit: destructive changes held for approval", zap.String("approval", a.ID),
			zap.Int("changes", len(fresh)), zap.String("reason", a.Reason))
		out.pending, out.created = append(out.pending, a.ID), &a
	}
	p.plan.Safety = nil // held, not failed: the rest of the plan goes on
	return out, nil
}

// heldChanges is what a real run did with approvals.
type heldChanges struct {
	pending []string        // the organization's pending approvals after the run
	created *state.Approval // the approval the run created, if any
}

// narrowPending drops from organization p's pending approvals what its
// plan no longer withholds (the sources no longer ask for it, or this run
// applies it itself), closing those left empty (dropped), and returns the
// approvals still pending.
func (e *env) narrowPending(dir *state.Dir, p *planned) ([]state.Approval, error) {
	pending, err := dir.Approvals(p.org.Name, state.Pending)
	if err != nil {
		return nil, fmt.Errorf("reading the pending approvals: %w", err)
	}
	withheld := &reconcile.Plan{Withheld: p.plan.Withheld}
	out := pending[:0]
	for _, a := range pending {
		kept, dropped := approval.Narrow(a.Changes, withheld)
		switch {
		case len(dropped) == 0:
			out = append(out, a)
			continue
		case len(kept) == 0:
			err = dir.Close(&a, state.Dropped)
			p.log.Info("approval dropped: the sources no longer ask for its changes, or this run applies them", zap.String("approval", a.ID))
		default:
			a.Changes, a.Updated, a.Run = kept, time.Now().UTC(), runID(p.start)
			err = dir.SaveApproval(&a)
			p.log.Info("approval narrowed: the sources no longer ask for some of its changes, or this run applies them", zap.String("approval", a.ID),
				zap.Int("dropped", len(dropped)), zap.Int("left", len(kept)))
			out = append(out, a)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func ids(list []state.Approval) []string {
	out := make([]string, len(list))
	for i := range list {
		out[i] = list[i].ID
	}
	return out
}

// finish records organization p's run (record) and notifies about it.
func (e *env) finish(ctx context.Context, p *planned, rep *runReport, mode applyMode, approvalID string) {
	e.record(p, rep, mode, approvalID)
	e.notifyRun(ctx, p, rep, mode)
}

// record keeps what organization p's run sent, for the --report file and,
// when there is a state directory, in its history and run records;
// approvalID is the approval the changes were held in, if any. A dry run
// records nothing. A failure to record is logged and does not fail the
// run.
func (e *env) record(p *planned, rep *runReport, mode applyMode, approvalID string) {
	if mode == applyDry {
		return
	}
	run, entries := runRecord(p, rep, mode, approvalID)
	e.keeper.mu.Lock()
	e.keeper.done.Runs = append(e.keeper.done.Runs, *run)
	e.keeper.done.Entries = append(e.keeper.done.Entries, entries...)
	e.keeper.mu.Unlock()
	dir := e.stateDir()
	if dir == nil {
		return
	}
	if err := dir.AppendHistory(entries); err != nil {
		p.log.Error("history: the applied changes could not be recorded", zap.Error(err))
	}
	if err := dir.AppendRun(run); err != nil {
		p.log.Error("the run could not be recorded", zap.Error(err))
	}
}

// runRecord is the record of organization p's run and its history
// entries.
func runRecord(p *planned, rep *runReport, mode applyMode, approvalID string) (*state.Run, []state.Entry) {
	end := time.Now().UTC()
	run := &state.Run{ID: runID(p.start), Org: p.org.Name, Start: p.start.UTC(), End: end, Mode: modeName(mode, approvalID),
		Result: state.RunSuccess, Changes: rep.applied, Requests: rep.stats.Total(), Status429: rep.stats.TooManyRequests,
		Approval: strings.Join(rep.held.pending, ",")}
	if approvalID != "" {
		run.Approval = approvalID
	}
	if len(rep.held.pending) > 0 {
		run.Result = state.RunHeld
	}
	if rep.err != nil {
		run.Result, run.Error = state.RunFailure, rep.err.Error()
	}
	if rep.result == nil || p.plan == nil {
		return run, nil
	}
	run.Failures = len(rep.result.Failures)
	a := state.Applied{Run: run.ID, Org: p.org.Name, Time: end, TestOnly: mode == applyTestOnly, Approval: approvalID,
		Unmatched: unmatchedKeys(p.plan)}
	return run, a.Entries(p.plan.Changes, rep.result.Failures)
}

// writeReport writes what this process's runs did to path, as CSV or
// HTML by its extension.
func (e *env) writeReport(path string) error {
	format, err := report.Format(path)
	if err != nil {
		return err
	}
	e.keeper.mu.Lock()
	defer e.keeper.mu.Unlock()
	return atomicfile.Write(path, func(w io.Writer) error { return e.keeper.done.Write(w, format) })
}

// modeName is a run record's mode.
func modeName(mode applyMode, approvalID string) string {
	switch {
	case approvalID != "":
		return "approve"
	case mode == applyTestOnly:
		return "test-only"
	}
	return "sync"
}

// unmatchedKeys are the keys of the plan's unmatched users.
func unmatchedKeys(p *reconcile.Plan) map[string]bool {
	out := make(map[string]bool, len(p.Unmatched))
	for i := range p.Unmatched {
		out[p.Unmatched[i].Key()] = true
	}
	return out
}

// addReportFlag defines --report.
func addReportFlag(fs *flag.FlagSet) *string {
	return fs.String("report", "", "write the run's summary and every change sent to this file: .csv, or .html (one self-contained page)")
}

// checkReportFlag checks --report before the run.
func checkReportFlag(path string) error {
	if path == "" {
		return nil
	}
	_, err := report.Format(path)
	return err
}

// reportTo writes the report to path when it is set and says where.
func (e *env) reportTo(io stdio, path string) error {
	if path == "" {
		return nil
	}
	if err := e.writeReport(path); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	fmt.Fprintf(io.out, "report written to %s\n", path)
	return nil
}
