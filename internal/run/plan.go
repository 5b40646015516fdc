package run

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/util/memlimit"
	"github.com/orgsync/orgsync/internal/util/oneline"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umapi"
)

// OrgPlan is one organization's plan, or the error that stopped it (the
// organization could not be read or planned). It marshals to JSON as the
// organization's part of the plan (see Plans.WriteJSON).
type OrgPlan struct {
	Org   *config.NamedTarget
	Plan  *reconcile.Plan // nil when the organization could not be planned
	Err   error           // what failed the organization, if anything
	Phase string          // where it failed (the Phase constants)
	Run   string          // the run's id (RunID)
	Read  Reading         // how the organization was read, and why
	// Desired are the source users the plan gives the organization, each
	// with the organization's groups (those out of the run's scope left
	// out).
	Desired reconcile.Users
	// What the run needs to apply it and report on it.
	log    *zap.Logger
	stats0 umapi.Stats // the client's statistics before this run
	start  time.Time
	inc    *incrementalRun // the run with the organization's snapshot (incremental runs on)
	memory memlimit.Usage  // what the run is expected to need (expectMemory)
}

// Plans are the plans of a run's organizations, in the configuration's
// order, with what they were made from (for Explain).
type Plans struct {
	Orgs []*OrgPlan
	// Gated is what the safety gate would let through of each (a dry
	// gate's decision, in Orgs' order): what a plan shows and saves.
	Gated   []*Gated
	Sources *Sources
	// Scope is the run's, before the per-organization exclusion of
	// unmapped users (orgScope).
	Scope reconcile.Scope
}

// InSync reports whether no organization's plan has anything to do.
func (ps *Plans) InSync() bool {
	for _, g := range ps.Gated {
		if p := g.plan.Plan; p != nil && !p.InSync() {
			return false
		}
	}
	return true
}

// Plan reads the sources once and computes the plan of every organization,
// side by side, with what the safety gate would let through of each
// (Plans.Gated). A source that fails fails the run (the error returned); an
// organization that fails to read or plan has its Err set and does not
// stop the others.
func (j *Job) Plan(ctx context.Context) (*Plans, error) {
	plans := make([]*OrgPlan, len(j.orgs))
	ps, err := j.planEach(ctx, func(_ context.Context, i int, p *OrgPlan) { plans[i] = p })
	if err != nil {
		return nil, err
	}
	ps.Orgs, ps.Gated = plans, make([]*Gated, len(plans))
	for i, p := range plans {
		ps.Gated[i] = j.gated(p, Dry)
	}
	return ps, nil
}

// planEach reads the sources once, then for every organization at once
// computes its plan and hands it to then (with its index in Orgs) as soon
// as it is ready. A source that fails fails the whole (the error returned;
// then is not called). When a source skipped bad records the desired
// state is marked incomplete, so that nothing destructive is planned for
// the users those records would have kept. The Plans returned hold the
// sources' side; their Orgs are for the caller to collect.
func (j *Job) planEach(ctx context.Context, then func(ctx context.Context, i int, p *OrgPlan)) (*Plans, error) {
	start := time.Now()
	memlimit.ResetPeak() // each run reports its own peak, in a daemon too
	d, err := j.ReadSources(ctx)
	if err != nil {
		return nil, InPhase(PhaseSources, err)
	}
	j.logProblems(d)
	scope, err := scopeOf(j.scope, d, j.log)
	if err != nil {
		return nil, InPhase(PhasePlan, err)
	}
	if len(d.Problems) > 0 {
		j.log.Warn("sources reported problems: no user loses access in this run", zap.Int("problems", len(d.Problems)))
	}
	parts := j.Split(d)
	each(ctx, len(j.orgs), func(ctx context.Context, i int) {
		t := j.orgs[i]
		part, sc := orgScope(j.scope, parts[t.Name], scope)
		p := &OrgPlan{Org: t, log: j.orgLog(t), start: start, Run: RunID(start)}
		p.Plan, p.Err = j.planOrg(ctx, p, reconcile.Desired{
			Users: part.Users, Complete: len(d.Problems) == 0, Held: part.Held, Scope: sc}, &part.Others)
		j.logChanges(p)
		then(ctx, i, p)
	})
	return &Plans{Sources: d, Scope: scope}, nil
}

// Split shares the desired state among the organizations, by name,
// warning of target groups that name no organization.
func (j *Job) Split(d *Sources) map[string]Part {
	parts, unknown := splitUsers(&d.Users, d.Held, j.takesAll, j.route)
	for _, g := range unknown {
		j.log.Warn(fmt.Sprintf("mapped target group %q names no organization of the configuration: it is left out", g))
	}
	out := make(map[string]Part, len(parts))
	for i := range parts {
		out[j.targets[i]] = parts[i]
	}
	return out
}

// planOrg reads organization p.Org and computes its plan for desired;
// others are source users the organization does not take (Part.Others).
func (j *Job) planOrg(ctx context.Context, p *OrgPlan, desired reconcile.Desired, others *reconcile.Users) (*reconcile.Plan, error) {
	policy := j.runPolicy(p.Org, &desired.Users)
	cur, err := j.readCurrent(ctx, p, policy.ReadNeedsFor(&desired.Users))
	if err != nil {
		return nil, err
	}
	j.opts.Observer.Read(p, cur)
	diff := func(p *OrgPlan, cur *reconcile.Current) (*reconcile.Plan, error) {
		d := desired
		d.Users = present(&desired.Users, others, &cur.Users)
		p.Desired = d.Users
		return reconcile.Diff(d, cur, policy)
	}
	if p.inc != nil {
		p.inc.diff = diff // to plan again after a full read
	}
	p.Phase = PhasePlan
	plan, err := diff(p, cur)
	if err != nil {
		return nil, fmt.Errorf("planning: %w", err)
	}
	p.expectMemory(cur.Users.Len(), p.Desired.Len(), len(plan.Changes), memlimit.Bound())
	if path := j.byOrg[p.Org.Name].reportFile; path != "" {
		if err := writeUnmatchedReport(path, plan.Unmatched, p.Org.PolicyKey(config.SettingReportFile)); err != nil {
			return plan, err // the plan stands; the run fails
		}
		p.log.Info("unmatched users written", zap.String("file", path), zap.Int("users", plan.Unmatched.Len()))
	}
	p.Phase = ""
	return plan, nil
}

// readCurrent reads organization p.Org's current state from the service,
// or takes it from Options.Current.
func (j *Job) readCurrent(ctx context.Context, p *OrgPlan, needs reconcile.ReadNeeds) (*reconcile.Current, error) {
	if j.opts.Current != nil {
		return j.opts.Current(p.Org), nil
	}
	client, err := j.Client(p.Org)
	if err != nil {
		p.Phase = PhaseSecret
		return nil, err
	}
	p.stats0 = client.Stats()
	stop := j.reportProgress(ctx, p.log, readProgress(client, p.stats0))
	cur, err := j.reader.read(ctx, p, newTarget(client), needs)
	stop()
	if err != nil {
		p.Phase = ServicePhase(err, PhaseRead)
		return nil, fmt.Errorf("reading the organization: %w", p.Org.Hint(err))
	}
	return cur, nil
}

// logChanges logs one line per planned change: at debug when the caller
// prints the plan (each change is then printed in one place only), else
// at info. The counts are in the summary line.
func (j *Job) logChanges(p *OrgPlan) {
	level := zapcore.InfoLevel
	if j.opts.PlansShown {
		level = zapcore.DebugLevel
	}
	if p.Plan == nil || !p.log.Core().Enabled(level) {
		return
	}
	for i := range p.Plan.Changes {
		ch := &p.Plan.Changes[i]
		p.log.Log(level, "planned: "+oneline.Change(ch), zap.String("kind", string(ch.Kind)), zap.String("key", ch.Key()))
	}
}
