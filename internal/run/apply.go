package run

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/run/incremental"
	"github.com/orgsync/orgsync/internal/util/memlimit"
	"github.com/orgsync/orgsync/internal/util/oneline"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umapi"
)

// Result is what applying one organization's plan did, for the summary,
// the metrics and a record of the run: every run of every organization
// ends in one, failed ones included (Err, Phase).
type Result struct {
	Org  *config.NamedTarget
	Mode Mode
	Run  string // the run's id (RunID), shared by its organizations
	// Start is when the run started (reading the sources, or applying a
	// released approval).
	Start time.Time
	// Plan is the plan as the gate let it through (nil when none was
	// made): Changes what was sent, Withheld what was held back; Decision
	// is what the gate decided.
	Plan     *reconcile.Plan
	Decision Decision
	Counts   reconcile.Counts  // the plan's
	Applied  *reconcile.Result // what was sent and what failed; nil when nothing could be sent
	ByKind   map[string]int    // changes applied, by kind (a real run's)
	Stats    umapi.Stats       // the requests of this run, reads included
	Elapsed  time.Duration     // since the run started reading
	Err      error             // what failed the organization's run, if anything
	Phase    string            // where it failed (the Phase constants)
	Read     Reading           // how the organization was read, and why
	// Switched is set when an answer contradicted the organization's
	// snapshot and the run read it whole and planned again (Read says
	// which answer): Plan is then what was sent of both plans.
	Switched bool
	// contradiction is the answer that ended the sending, until the run
	// switched to a full read.
	contradiction *incremental.Contradiction
	// Memory is the process's peak memory during the run against what it
	// may use (a run that comes near it warns).
	Memory memlimit.Usage
}

// Apply sends what the safety gate let through of one organization's
// plan, in the mode it was gated for (a dry run goes the same way and
// logs what it would send), and logs its summary. The Result's Err is
// what failed it: a plan that could not be made or gated, an error
// applying it; none in a dry run (what it would withhold, the plan shows
// already). A plan the gate released from an approval (Release) closes
// the approval once sent. A Gated the gate did not make is refused.
func (j *Job) Apply(ctx context.Context, g *Gated) *Result {
	if g == nil || g.plan.Org == nil {
		return &Result{Org: &config.NamedTarget{}, Err: errNotGated, Phase: PhaseGate}
	}
	res, sent := j.apply(ctx, g)
	if c := res.contradiction; c != nil { // not planned again here (see applySwitching): the next run reads fully
		res.Err, res.Phase = fmt.Errorf("sending stopped: %s; the next run reads the whole organization", c), PhaseApply
	}
	j.end(g, res, sent)
	return res
}

// end ends the run that applied g: its summary is logged when it sent (or
// tried to), the Observer hears the Result, and a release's journal goes
// once the Result is recorded.
func (j *Job) end(g *Gated, res *Result, sent bool) {
	if sent {
		summary(g.plan.log, res, res.Err)
	}
	j.finish(g, j.opts.Observer.Applied(res))
}

// apply sends g's plan (see Apply) and reports whether it came to sending:
// not when the plan failed, or no client could be made. An answer that
// contradicts the snapshot the plan was made from ends the sending of a
// run's own plan (Result.contradiction; see applySwitching).
func (j *Job) apply(ctx context.Context, g *Gated) (res *Result, sent bool) {
	p, mode := &g.plan, g.mode
	log := p.prepare(j)
	res = &Result{Org: p.Org, Mode: mode, Run: p.Run, Start: p.start, Plan: p.Plan, Decision: g.decision, Read: p.Read}
	if p.Err != nil {
		log.Error("planning failed; the error is reported at the end of the run") // once, by the caller
		res.Err, res.Phase, res.Elapsed = p.Err, p.Phase, time.Since(p.start)
		return res, false
	}
	res.Counts, res.ByKind = p.Plan.Counts(), map[string]int{}
	client, err := j.Client(p.Org)
	if err != nil {
		res.Err, res.Phase = err, PhaseSecret
		j.settle(g, res)
		return res, false
	}
	reqs := p.Plan.Batches(reconcile.DefaultLimits())
	out, stop := j.applyOutput(ctx, p, client, mode, len(reqs))
	res.Applied, res.contradiction, err = j.send(ctx, g, client, reconcile.ApplyOptions{
		DryRun: mode == Dry, TestOnly: mode == TestOnly, Requests: reqs, Events: oneline.Events(out)})
	out.Flush()
	stop()
	if mode == Real {
		res.ByKind = appliedByKind(res.Plan, res.Applied)
	}
	res.Stats = client.Stats().Since(p.stats0)
	res.Elapsed = time.Since(p.start)
	res.Memory = memlimit.Now()
	res.Memory.Estimate = p.memory.Estimate
	if mode != Dry && err != nil {
		res.Err, res.Phase = err, PhaseOr(err, ServicePhase(err, PhaseApply))
	}
	j.settle(g, res)
	return res, true
}

// prepare returns the plan's organization logger, and starts its run now
// when it has not started.
func (p *OrgPlan) prepare(j *Job) *zap.Logger {
	p.log = p.logger(j)
	if p.start.IsZero() {
		p.start = time.Now()
	}
	return p.log
}

// logger is the plan's organization logger.
func (p *OrgPlan) logger(j *Job) *zap.Logger {
	if p.log != nil {
		return p.log
	}
	return j.orgLog(p.Org)
}

// ApplyAll gates the plans in mode and applies them side by side, and
// returns a Result for each organization and every organization's error,
// joined.
func (j *Job) ApplyAll(ctx context.Context, plans *Plans, mode Mode) ([]*Result, error) {
	res := make([]*Result, len(plans.Orgs))
	each(ctx, len(plans.Orgs), func(ctx context.Context, i int) { res[i] = j.applySwitching(ctx, j.gated(plans.Orgs[i], mode)) })
	return res, j.joinErrors(res)
}

// Sync reads the sources once, then plans, gates and applies (in mode)
// every organization side by side, each as soon as its own plan is ready,
// so that an organization that is slow to read holds no other back. show,
// when not nil, is handed each gated plan (one at a time, in the order
// they are ready) before it is applied, to print it; an error from it
// fails that organization. It returns a Result for each organization and
// every organization's error, joined; a source that fails fails every
// organization (their Results say so, with the phase).
func (j *Job) Sync(ctx context.Context, mode Mode, show func(g *Gated) error) ([]*Result, error) {
	var mu sync.Mutex // one plan at a time
	res := make([]*Result, len(j.orgs))
	_, err := j.planEach(ctx, func(ctx context.Context, i int, p *OrgPlan) {
		g := j.gated(p, mode)
		p.Plan = nil // the gate's copy is sent: the plan is let go (its snapshot's run keeps p)
		if show != nil {
			mu.Lock()
			err := show(g)
			mu.Unlock()
			if err != nil {
				res[i] = &Result{Org: p.Org, Mode: mode, Run: p.Run, Start: p.start, Err: err, Phase: PhasePlan}
				j.opts.Observer.Applied(res[i])
				return
			}
		}
		res[i] = j.applySwitching(ctx, g)
	})
	if err != nil {
		return j.failed(mode, err), err
	}
	return res, j.joinErrors(res)
}

// failed ends a run of the job that failed before any organization could
// be planned (a source, the scope): a Result for each organization with
// the error and its phase (PhaseOf), heard by the Observer.
func (j *Job) failed(mode Mode, err error) []*Result {
	res := FailedRun(j.orgs, mode, time.Now(), err)
	for _, r := range res {
		j.opts.Observer.Applied(r)
	}
	return res
}

// FailedRun is the Results of a run of the organizations that failed with
// err before they could be planned.
func FailedRun(orgs []*config.NamedTarget, mode Mode, start time.Time, err error) []*Result {
	res := make([]*Result, len(orgs))
	for i, t := range orgs {
		res[i] = &Result{Org: t, Mode: mode, Run: RunID(start), Start: start, Err: err, Phase: PhaseOf(err)}
	}
	return res
}

// joinErrors joins the organizations' errors, each prefixed with its
// organization's name when there are several.
func (j *Job) joinErrors(res []*Result) error {
	var out []error
	for _, r := range res {
		if r.Err == nil {
			continue
		}
		err := r.Err
		if j.multiOrg {
			err = fmt.Errorf("organization %s: %w", r.Org.Name, err)
		}
		out = append(out, err)
	}
	return errors.Join(out...)
}

// applyOutput returns where Apply writes its request lines, and starts the
// progress lines for total requests (stop ends them). A real or test-only
// run logs each request it sends at info, unless it sends more than
// QuietAbove: then those lines go to debug and a progress line is logged
// every quietProgressEvery (every progressEvery on a terminal). A dry run's
// "would send" lines (the plan is printed already) are for debugging.
func (j *Job) applyOutput(ctx context.Context, p *OrgPlan, c *umapi.Client, mode Mode, total int) (out *logWriter, stop func()) {
	out = &logWriter{log: p.log, level: zapcore.InfoLevel}
	if mode == Dry {
		out.level = zapcore.DebugLevel
		return out, func() {}
	}
	progress := sendProgress(p, c, total)
	big := total > QuietAbove
	if big {
		out.level = zapcore.DebugLevel
		p.log.Info("sending requests: progress lines follow (each request is logged at --log-level debug)", zap.Int("requests", total))
	}
	switch {
	case j.opts.Interactive:
		return out, j.reportProgress(ctx, p.log, progress)
	case big:
		return out, logProgress(ctx, p.log, quietProgressEvery, progress)
	}
	return out, func() {}
}

// appliedByKind counts the changes of each kind that were sent and did
// not fail.
func appliedByKind(plan *reconcile.Plan, res *reconcile.Result) map[string]int {
	failed := map[string]bool{}
	if res != nil {
		for _, f := range res.Failures {
			failed[strings.ToLower(f.Target)] = true
		}
		for _, t := range res.Unsent {
			failed[strings.ToLower(t)] = true
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
func summary(log *zap.Logger, res *Result, err error) {
	var fields []zap.Field
	for _, k := range reconcile.Kinds() { // every kind of the table, by its name
		fields = append(fields, zap.Int(string(k), res.Counts.Of(k)))
	}
	fields = append(fields,
		zap.Int("addMemberships", res.Counts.AddMemberships), zap.Int("removeMemberships", res.Counts.RemoveMemberships),
		zap.Int("withheld", res.Counts.Withheld), zap.Int("unmatched", res.Counts.Unmatched),
		zap.String("read", string(res.Read.Kind)), zap.Int("requests", res.Stats.Total()), zap.Int("429s", res.Stats.TooManyRequests),
		zap.Int("retries", res.Stats.Retries),
		zap.Duration("elapsed", res.Elapsed.Round(time.Millisecond)),
		zap.String("peakMemory", fmt.Sprintf("%.1f MiB", float64(res.Memory.Peak)/(1<<20))),
	)
	if res.Memory.Bound > 0 {
		fields = append(fields, zap.String("memoryLimit", memlimit.MiB(res.Memory.Bound)))
	}
	if res.Applied != nil {
		fields = append(fields, zap.Int("actionRequests", res.Applied.Requests), zap.Int("failures", len(res.Applied.Failures)))
	}
	msg := "summary"
	if res.Mode == TestOnly {
		msg = "summary (test only: the service validated the requests and changed nothing)"
	}
	if err != nil {
		log.Error(msg+": finished with errors, reported at the end of the run", fields...) // once, by the caller
	} else {
		log.Info(msg, fields...)
	}
	if m := res.Memory; m.PeakNear() {
		log.Warn(fmt.Sprintf("the run's peak memory, %s, is %d%% of the %s this process may use: a larger organization may be killed for memory; "+
			"give the container more memory (docs/deployment.md, Memory)", memlimit.MiB(m.Peak), m.Percent(m.Peak), memlimit.MiB(m.Bound)),
			zap.Uint64("peakMemoryBytes", m.Peak), zap.Uint64("memoryLimitBytes", m.Bound))
	}
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
