package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source/mapping"
	"github.com/orgsync/orgsync/target/umapi"
)

// applyMode says how far a run goes after planning.
type applyMode int

const (
	applyDry      applyMode = iota // plan only: log what would be sent, send nothing
	applyTestOnly                  // send with ?testOnly=true: validated, nothing changed
	applyReal                      // apply
)

// target is the service as the reconciler sees it: a reader of the current
// state and a sender of changes.
type target interface {
	reconcile.Reader
	reconcile.Sender
}

// planned is a computed plan with what made it.
type planned struct {
	plan   *reconcile.Plan
	client *umapi.Client
	stats0 umapi.Stats // the client's statistics before this run
	target target
	start  time.Time
	// What the plan was made from, for plan --explain.
	desired *desired
	mapper  *mapping.Mapper
	scope   reconcile.Scope
}

// makePlan reads the sources and the organization and computes the plan.
// A source that fails fails the plan. When a source skipped bad records the
// desired state is marked incomplete, so that nothing destructive is
// planned for the users those records would have kept.
func (e *env) makePlan(ctx context.Context) (*planned, error) {
	start := time.Now()
	m, err := e.cfg.Mapper()
	if err != nil {
		return nil, err
	}
	policy, err := e.cfg.ReconcilePolicy(m)
	if err != nil {
		return nil, err
	}
	d, err := e.readSources(ctx, m)
	if err != nil {
		return nil, err
	}
	scope, err := e.runScope(d)
	if err != nil {
		return nil, err
	}
	policy.ManageGroupsOf(d.users) // every group of theirs comes from a mapping rule
	if len(d.problems) > 0 {
		e.log.Warn("sources reported problems: no user loses access in this run", zap.Int("problems", len(d.problems)))
	}
	c, err := e.client()
	if err != nil {
		return nil, err
	}
	stats0 := c.Stats()
	t := newTarget(c)
	stop := e.reportProgress(ctx, readProgress(c, stats0))
	cur, err := t.ReadCurrent(ctx, policy.ReadScopeFor(d.users))
	stop()
	if err != nil {
		return nil, fmt.Errorf("reading the organization: %w", err)
	}
	plan, err := reconcile.Diff(reconcile.Desired{Users: d.users, Complete: len(d.problems) == 0, Held: d.held, Scope: scope}, cur, policy)
	if err != nil {
		return nil, fmt.Errorf("planning: %w", err)
	}
	if plan.Safety != nil {
		e.log.Warn(plan.Safety.Error())
	}
	if path := e.cfg.Policy.ReportFile; path != "" {
		if err := writeUnlistedReport(path, plan.Unlisted); err != nil {
			return nil, err
		}
		e.log.Info("unmatched users written", zap.String("file", path), zap.Int("users", len(plan.Unlisted)))
	}
	return &planned{plan: plan, client: c, stats0: stats0, target: t, start: start, desired: d, mapper: m, scope: scope}, nil
}

// logChanges logs one line per planned change at level. The commands that
// print the plan on standard output (plan, sync, demo) log them at debug,
// so that each change is printed in one place only; the daemon, which
// prints no plan, logs them at info. The counts are in the summary line.
func (e *env) logChanges(plan *reconcile.Plan, level zapcore.Level) {
	if !e.log.Core().Enabled(level) {
		return
	}
	for i := range plan.Changes {
		ch := &plan.Changes[i]
		e.log.Log(level, "planned: "+ch.String(), zap.String("kind", string(ch.Kind)), zap.String("key", ch.Key()))
	}
}

// runReport is what one run did, for the summary and the metrics.
type runReport struct {
	counts  reconcile.Counts
	result  *reconcile.Result
	applied map[string]int // changes applied, by kind
	stats   umapi.Stats
	elapsed time.Duration
}

// apply sends the plan (as test-only requests when mode is applyTestOnly),
// or in a dry run (applyDry) goes the same way and logs what it would send.
func (e *env) apply(ctx context.Context, p *planned, mode applyMode) (*runReport, error) {
	rep := &runReport{counts: p.plan.Counts(), applied: map[string]int{}}
	stop := func() {}
	if e.interactive && mode != applyDry { // counting the requests costs a packing of the plan
		stop = e.reportProgress(ctx, e.sendProgress(p))
	}
	// A real or test-only run logs each request it sends; a dry run's
	// "would send" lines (the plan is printed already) are for debugging.
	out := &logWriter{log: e.log, level: zapcore.InfoLevel}
	if mode == applyDry {
		out.level = zapcore.DebugLevel
	}
	var err error
	rep.result, err = reconcile.Apply(ctx, p.plan, p.target, reconcile.ApplyOptions{
		DryRun: mode == applyDry, TestOnly: mode == applyTestOnly, Out: out})
	out.Flush()
	stop()
	if mode == applyReal {
		rep.applied = appliedByKind(p.plan, rep.result)
	}
	rep.stats = p.client.Stats().Since(p.stats0)
	rep.elapsed = time.Since(p.start)
	return rep, err
}

// appliedByKind counts the changes of each kind that did not fail.
func appliedByKind(plan *reconcile.Plan, res *reconcile.Result) map[string]int {
	failed := map[string]bool{}
	if res != nil {
		for _, f := range res.Failures {
			failed[strings.ToLower(f.Target)] = true
		}
	}
	out := map[string]int{}
	for i := range plan.Changes {
		if !failed[strings.ToLower(plan.Changes[i].Key())] {
			out[string(plan.Changes[i].Kind)]++
		}
	}
	return out
}

// summary logs the final line of a run.
func (e *env) summary(rep *runReport, err error) {
	fields := []zap.Field{
		zap.Int("create", rep.counts.Create), zap.Int("update", rep.counts.Update),
		zap.Int("remove", rep.counts.Remove), zap.Int("delete", rep.counts.Delete),
		zap.Int("addMemberships", rep.counts.AddMemberships), zap.Int("removeMemberships", rep.counts.RemoveMemberships),
		zap.Int("withheld", rep.counts.Withheld), zap.Int("unlisted", rep.counts.Unlisted),
		zap.Int("requests", rep.stats.Total()), zap.Int("429s", rep.stats.TooManyRequests),
		zap.Int("retries", rep.stats.Retries),
		zap.Duration("elapsed", rep.elapsed.Round(time.Millisecond)),
		zap.String("peakMemory", fmt.Sprintf("%.1f MiB", float64(peakMemory())/(1<<20))),
	}
	if rep.result != nil {
		fields = append(fields, zap.Int("actionRequests", rep.result.Requests), zap.Int("failures", len(rep.result.Failures)))
	}
	if err != nil {
		e.log.Error("summary: finished with errors", append(fields, zap.Error(err))...)
		return
	}
	e.log.Info("summary", fields...)
}

// sync runs the whole job once: plan, then apply in the given mode.
func (e *env) sync(ctx context.Context, mode applyMode) (*runReport, error) {
	p, err := e.makePlan(ctx)
	if err != nil {
		return nil, err
	}
	e.logChanges(p.plan, zapcore.InfoLevel)
	rep, err := e.apply(ctx, p, mode)
	e.summary(rep, err)
	return rep, err
}

// logWriter turns the lines Apply writes into log lines at level.
type logWriter struct {
	log   *zap.Logger
	level zapcore.Level
	buf   []byte
}

// Write logs each complete line of b; the rest waits for more.
func (w *logWriter) Write(b []byte) (int, error) {
	w.buf = append(w.buf, b...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			return len(b), nil
		}
		w.log.Log(w.level, strings.TrimSpace(string(w.buf[:i])))
		w.buf = w.buf[i+1:]
	}
}

// Flush logs a last unterminated line.
func (w *logWriter) Flush() {
	if len(w.buf) > 0 {
		w.log.Log(w.level, string(w.buf))
		w.buf = nil
	}
}
