package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/orgsync/orgsync/cmd/orgsync/internal/fanout"
	"github.com/orgsync/orgsync/config"
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

// planned is one organization's computed plan with what made it; err is
// set instead when the organization could not be read or planned.
type planned struct {
	org    *config.NamedTarget
	log    *zap.Logger
	plan   *reconcile.Plan
	client *umapi.Client
	stats0 umapi.Stats // the client's statistics before this run
	target target
	start  time.Time
	err    error
	// What the plan was made from, for plan --explain; scope is the
	// run's, before scope.excludeUnmappedUsers leaves out the users with
	// no group of this organization.
	desired *desired
	mapper  *mapping.Mapper
	scope   reconcile.Scope
}

// makePlans reads the sources once and computes the plan of every
// organization, side by side. A source that fails fails every plan (the
// error returned); an organization that fails to read or plan has its err
// set and does not stop the others.
func (e *env) makePlans(ctx context.Context) ([]*planned, error) {
	plans := make([]*planned, len(e.selected))
	err := e.eachPlan(ctx, func(_ context.Context, i int, p *planned) { plans[i] = p })
	if err != nil {
		return nil, err
	}
	return plans, nil
}

// eachPlan reads the sources once, then for every organization at once
// computes its plan and hands it to then (with its index in e.selected).
// A source that fails fails the whole (the error returned, then is not
// called); an organization that fails to read or plan is handed over with
// its err set. When a source skipped bad records the desired state is
// marked incomplete, so that nothing destructive is planned for the users
// those records would have kept.
func (e *env) eachPlan(ctx context.Context, then func(ctx context.Context, i int, p *planned)) error {
	start := time.Now()
	m, err := e.cfg.Mapper()
	if err != nil {
		return err
	}
	d, err := e.readSources(ctx, m)
	if err != nil {
		return err
	}
	scope, err := e.runScope(d)
	if err != nil {
		return err
	}
	if len(d.problems) > 0 {
		e.log.Warn("sources reported problems: no user loses access in this run", zap.Int("problems", len(d.problems)))
	}
	parts := e.split(d)
	fanout.Each(ctx, len(e.selected), func(ctx context.Context, i int) error {
		t := e.selected[i]
		part, orgScope := parts[t.Name], scope
		if e.cfg.Scope.ExcludeUnmappedUsers { // unmapped is per organization: no group of this one
			var out []reconcile.User
			part, out = part.LeaveOutUnmapped()
			orgScope.Out = slices.Concat(scope.Out, out)
		}
		p := &planned{org: t, log: e.orgLog(t), start: start, desired: d, mapper: m, scope: scope}
		p.err = e.planOrg(ctx, p, m, reconcile.Desired{
			Users: part.Users, Complete: len(d.problems) == 0, Held: part.Held, Scope: orgScope}, part.Others)
		then(ctx, i, p)
		return nil
	})
	return nil
}

// split shares the desired state among the organizations, by name,
// warning of target groups that name no organization.
func (e *env) split(d *desired) map[string]fanout.Part {
	all := make([]bool, len(e.cfg.Targets))
	for i := range e.cfg.Targets {
		all[i] = e.cfg.Targets[i].Members == config.MembersAll
	}
	parts, unknown := fanout.Split(d.users, d.held, all, e.cfg.TargetIndex)
	for _, g := range unknown {
		e.log.Warn(fmt.Sprintf("mapped target group %q names no organization of the configuration: it is left out", g))
	}
	out := make(map[string]fanout.Part, len(parts))
	for i := range parts {
		out[e.cfg.Targets[i].Name] = parts[i]
	}
	return out
}

// orgLog is the logger of organization t: with an org field when the
// configuration has several.
func (e *env) orgLog(t *config.NamedTarget) *zap.Logger {
	if !e.cfg.MultiOrg() {
		return e.log
	}
	return e.log.With(zap.String("org", t.Name))
}

// planOrg reads organization p.org and computes its plan for desired;
// others are source users the organization does not take (fanout.Part).
func (e *env) planOrg(ctx context.Context, p *planned, m *mapping.Mapper, desired reconcile.Desired, others []reconcile.User) error {
	policy, err := e.cfg.TargetPolicy(p.org, m)
	if err != nil {
		return err
	}
	policy.ManageGroupsOf(desired.Users) // every group of theirs comes from a mapping rule
	if p.client, err = e.client(p.org); err != nil {
		return err
	}
	p.stats0 = p.client.Stats()
	p.target = newTarget(p.client)
	stop := e.reportProgress(ctx, p.log, readProgress(p.client, p.stats0))
	cur, err := p.target.ReadCurrent(ctx, policy.ReadNeedsFor(desired.Users))
	stop()
	if err != nil {
		return fmt.Errorf("reading the organization: %w", withSettingHint(err, p.org))
	}
	desired.Users = fanout.Present(desired.Users, others, cur.Users)
	if p.plan, err = reconcile.Diff(desired, cur, policy); err != nil {
		return fmt.Errorf("planning: %w", err)
	}
	if p.plan.Safety != nil {
		p.log.Warn(p.plan.Safety.Error())
	}
	if path := e.reportFile(p.org); path != "" {
		if err := writeUnmatchedReport(path, p.plan.Unmatched); err != nil {
			return err
		}
		p.log.Info("unmatched users written", zap.String("file", path), zap.Int("users", len(p.plan.Unmatched)))
	}
	return nil
}

// reportFile is where organization t's unmatched users are written: its
// policy's reportFile, with the organization's name before the extension
// when it is the top-level policy's and t is not the primary.
func (e *env) reportFile(t *config.NamedTarget) string {
	path := e.cfg.PolicyOf(t).ReportFile
	if path == "" || t.Policy != nil || t == e.cfg.Primary() {
		return path
	}
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "-" + t.Name + ext
}

// logChanges logs one line per planned change at level. The commands that
// print the plan on standard output (plan, sync, demo) log them at debug,
// so that each change is printed in one place only; the daemon, which
// prints no plan, logs them at info. The counts are in the summary line.
func (p *planned) logChanges(level zapcore.Level) {
	if p.plan == nil || !p.log.Core().Enabled(level) {
		return
	}
	for i := range p.plan.Changes {
		ch := &p.plan.Changes[i]
		p.log.Log(level, "planned: "+ch.String(), zap.String("kind", string(ch.Kind)), zap.String("key", ch.Key()))
	}
}

// runReport is what one run did, for the summary and the metrics.
type runReport struct {
	org     *config.NamedTarget
	log     *zap.Logger
	counts  reconcile.Counts
	result  *reconcile.Result
	applied map[string]int // changes applied, by kind
	stats   umapi.Stats
	elapsed time.Duration
	err     error // what failed the organization's run, if anything
}

// apply sends the plan (as test-only requests when mode is applyTestOnly),
// or in a dry run (applyDry) goes the same way and logs what it would send.
func (e *env) apply(ctx context.Context, p *planned, mode applyMode) (*runReport, error) {
	rep := &runReport{org: p.org, log: p.log, counts: p.plan.Counts(), applied: map[string]int{}}
	reqs := p.plan.Batches(reconcile.DefaultLimits())
	out, stop := e.applyOutput(ctx, p, mode, len(reqs))
	var err error
	rep.result, err = reconcile.Apply(ctx, p.plan, p.target, reconcile.ApplyOptions{
		DryRun: mode == applyDry, TestOnly: mode == applyTestOnly, Requests: reqs, Out: out})
	out.Flush()
	stop()
	if mode == applyReal {
		rep.applied = appliedByKind(p.plan, rep.result)
	}
	rep.stats = p.client.Stats().Since(p.stats0)
	rep.elapsed = time.Since(p.start)
	return rep, err
}

// applyOutput returns where Apply writes its request lines, and starts the
// progress lines for total requests (stop ends them). A real or test-only
// run logs each request it sends at info, unless it sends more than
// quietAbove: then those lines go to debug and a progress line is logged
// every quietProgressEvery (every progressEvery on a terminal). A dry run's
// "would send" lines (the plan is printed already) are for debugging.
func (e *env) applyOutput(ctx context.Context, p *planned, mode applyMode, total int) (out *logWriter, stop func()) {
	out = &logWriter{log: p.log, level: zapcore.InfoLevel}
	if mode == applyDry {
		out.level = zapcore.DebugLevel
		return out, func() {}
	}
	progress := sendProgress(p, total)
	big := total > quietAbove
	if big {
		out.level = zapcore.DebugLevel
		p.log.Info("sending requests: progress lines follow (each request is logged at --log-level debug)", zap.Int("requests", total))
	}
	switch {
	case e.interactive:
		return out, e.reportProgress(ctx, p.log, progress)
	case big:
		return out, logProgress(ctx, p.log, quietProgressEvery, progress)
	}
	return out, func() {}
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

// summary logs the final line of an organization's run.
func summary(rep *runReport, err error) {
	fields := []zap.Field{
		zap.Int("create", rep.counts.Create), zap.Int("update", rep.counts.Update),
		zap.Int("remove", rep.counts.Remove), zap.Int("delete", rep.counts.Delete),
		zap.Int("addMemberships", rep.counts.AddMemberships), zap.Int("removeMemberships", rep.counts.RemoveMemberships),
		zap.Int("withheld", rep.counts.Withheld), zap.Int("unmatched", rep.counts.Unmatched),
		zap.Int("requests", rep.stats.Total()), zap.Int("429s", rep.stats.TooManyRequests),
		zap.Int("retries", rep.stats.Retries),
		zap.Duration("elapsed", rep.elapsed.Round(time.Millisecond)),
		zap.String("peakMemory", fmt.Sprintf("%.1f MiB", float64(peakMemory())/(1<<20))),
	}
	if rep.result != nil {
		fields = append(fields, zap.Int("actionRequests", rep.result.Requests), zap.Int("failures", len(rep.result.Failures)))
	}
	if err != nil {
		rep.log.Error("summary: finished with errors", append(fields, zap.Error(err))...)
		return
	}
	rep.log.Info("summary", fields...)
}

// sync runs the whole job once for every organization, each on its own
// (see syncEach); it prints no plan, and logs the planned changes at info.
func (e *env) sync(ctx context.Context, mode applyMode) ([]*runReport, error) {
	return e.syncEach(ctx, io.Discard, mode)
}

// syncEach reads the sources once, then plans and applies (in mode) every
// organization side by side, each as soon as its own plan is ready, so
// that an organization that is slow to read holds no other back. Each plan
// is written to w as text when it is ready (under its heading when there
// are several organizations, in the order they finish); its changes are
// logged at debug, or at info when w is io.Discard (see logChanges). It
// returns a report for each organization and every organization's error,
// joined.
func (e *env) syncEach(ctx context.Context, w io.Writer, mode applyMode) ([]*runReport, error) {
	level := zapcore.DebugLevel
	if w == io.Discard {
		level = zapcore.InfoLevel
	}
	var mu sync.Mutex // one plan written at a time
	written := 0
	reps := make([]*runReport, len(e.selected))
	err := e.eachPlan(ctx, func(ctx context.Context, i int, p *planned) {
		p.logChanges(level)
		mu.Lock()
		if written++; written > 1 {
			fmt.Fprintln(w) // a blank line between organizations
		}
		err := e.renderPlan(w, p)
		mu.Unlock()
		if err != nil {
			reps[i] = &runReport{org: p.org, log: p.log, err: err}
			return
		}
		reps[i] = e.applyOne(ctx, p, mode)
	})
	if err != nil {
		return nil, err
	}
	return reps, e.orgErrors(reps)
}

// applyAll applies the plans side by side, logs each organization's
// summary, and returns a report for each organization and every
// organization's error, joined.
func (e *env) applyAll(ctx context.Context, plans []*planned, mode applyMode) ([]*runReport, error) {
	reps := make([]*runReport, len(plans))
	fanout.Each(ctx, len(plans), func(ctx context.Context, i int) error {
		reps[i] = e.applyOne(ctx, plans[i], mode)
		return nil
	})
	return reps, e.orgErrors(reps)
}

// applyOne applies one organization's plan and logs its summary; the
// report's err is what failed it (a plan that could not be made, an error
// applying it), none in a dry run.
func (e *env) applyOne(ctx context.Context, p *planned, mode applyMode) *runReport {
	if p.err != nil {
		p.log.Error("planning failed", zap.Error(p.err))
		return &runReport{org: p.org, log: p.log, err: p.err, elapsed: time.Since(p.start)}
	}
	rep, err := e.apply(ctx, p, mode)
	if mode == applyDry {
		err = nil // what a dry run would withhold, the plan shows already
	}
	rep.err = err
	summary(rep, err)
	return rep
}

// orgErrors joins the organizations' errors, each prefixed with its
// organization's name when there are several.
func (e *env) orgErrors(reps []*runReport) error {
	var out []error
	for _, rep := range reps {
		if rep.err == nil {
			continue
		}
		err := rep.err
		if e.cfg.MultiOrg() {
			err = fmt.Errorf("organization %s: %w", rep.org.Name, err)
		}
		out = append(out, err)
	}
	return errors.Join(out...)
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
