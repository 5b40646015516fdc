// Package changecontrol is what surrounds a run so that it can run
// unattended. As a run.Observer it hears a Job's plans and results: before
// a real run applies an organization's plan it stops the run or holds what
// a tripped safety limit kept back as a pending approval (safety.onLimit),
// dropping from the pending approvals what the run no longer withholds;
// after it, it records the history and the run record in the state
// directory (internal/state), collects the report and sends the
// notifications. It also applies or rejects an approval and saves and
// checks saved plans (internal/planfile).
package changecontrol

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/approval"
	"github.com/orgsync/orgsync/internal/atomicfile"
	"github.com/orgsync/orgsync/internal/planfile"
	"github.com/orgsync/orgsync/internal/report"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/state"
	"github.com/orgsync/orgsync/reconcile"
)

// Control hears the runs of one command (or of a daemon, run after run).
// It is safe for concurrent use: the organizations of a run report from
// their own goroutines.
type Control struct {
	log *zap.Logger

	once sync.Once
	dir  *state.Dir

	mu       sync.Mutex
	cfg      *config.Config
	mode     run.Mode // the mode the runs heard apply in: only a real run holds
	start    time.Time
	approval string                  // the approval being applied (Approve)
	plans    map[string]*run.OrgPlan // the last plan of each organization
	current  map[string]string       // the fingerprint of each organization's users as read
	held     map[string]Held
	done     report.Report
	// prints asks for the fingerprints of the organizations' users (a
	// saved plan's).
	prints bool
}

// Held is what a real run did with an organization's approvals.
type Held struct {
	Pending []string        // the organization's pending approvals after the run
	Created *state.Approval // the approval the run created, if any
}

// New returns the change control of cfg's runs, applied in mode.
func New(cfg *config.Config, log *zap.Logger, mode run.Mode) *Control {
	if log == nil {
		log = zap.NewNop()
	}
	return &Control{cfg: cfg, log: log, mode: mode, start: time.Now(), plans: map[string]*run.OrgPlan{},
		current: map[string]string{}, held: map[string]Held{}}
}

// SetMode says the mode the runs heard from now on apply in.
func (c *Control) SetMode(m run.Mode) {
	c.mu.Lock()
	c.mode = m
	c.mu.Unlock()
}

// BeginRun starts the next run of a daemon with cfg, its configuration
// now: a new run id; the report keeps the last run only.
func (c *Control) BeginRun(cfg *config.Config) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cfg, c.start, c.done = cfg, time.Now(), report.Report{}
	c.held = map[string]Held{}
}

// RunID names the current run; its organizations share it.
func (c *Control) RunID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return runID(c.start)
}

func runID(start time.Time) string { return start.UTC().Format("20060102T150405.000Z") }

// StateDir returns the open state directory, or nil when state.dir is not
// set or cannot be opened; either is logged once, with what is not kept.
func (c *Control) StateDir() *state.Dir {
	c.once.Do(func() {
		s := c.config().State
		if s.Dir == "" {
			c.log.Warn("state.dir is not set: no history of applied changes and no run records are kept, " +
				"and changes a safety limit holds cannot wait for approval (the run fails instead)")
			return
		}
		dir, err := state.Open(s.Dir, state.Options{MaxFileBytes: int64(s.MaxFileMB) << 20, Retention: s.Retention})
		if err != nil {
			c.log.Error("state directory unusable: no history, run records or approvals are kept", zap.Error(err))
			return
		}
		c.dir = dir
	})
	return c.dir
}

func (c *Control) config() *config.Config {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cfg
}

// HeldIn returns what the last real run did with org's approvals.
func (c *Control) HeldIn(org string) Held {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held[org]
}

// Planned holds or stops, in a real run, what a tripped safety limit
// withheld from p (see HoldOrStop).
func (c *Control) Planned(p *run.OrgPlan) {
	c.mu.Lock()
	c.plans[p.Org.Name] = p
	mode := c.mode
	c.mu.Unlock()
	if mode == run.Real {
		c.HoldOrStop(p)
	}
}

// Read keeps the fingerprint of the organization's users as read,
// when a saved plan asks for it.
func (c *Control) Read(p *run.OrgPlan, cur *reconcile.Current) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.prints {
		c.current[p.Org.Name] = planfile.UsersFingerprint(cur.Users)
	}
}

// HoldOrStop applies safety.onLimit to organization p's plan before a real
// run applies it. When a limit tripped, stop withholds every change (the
// run applies nothing and fails); hold, with a state directory, keeps the
// withheld changes no approval holds yet as a new pending approval and
// clears the plan's safety stop, so that the rest is applied and the run
// succeeds. With a state directory it first drops from the pending
// approvals what the plan no longer withholds.
func (c *Control) HoldOrStop(p *run.OrgPlan) {
	if p.Err != nil || p.Plan == nil {
		return
	}
	log := c.log.With(zap.String("org", p.Org.Name))
	tripped := approval.LimitTripped(p.Plan)
	if tripped && c.config().SafetyOf(p.Org).OnLimit == config.OnLimitStop {
		p.Plan.Withheld = append(p.Plan.Withheld, p.Plan.Changes...)
		p.Plan.Changes = nil
		p.Plan.Safety.Reason += "; safety.onLimit is stop: nothing applied"
		return
	}
	dir := c.StateDir()
	if dir == nil {
		return
	}
	held, err := c.hold(dir, p, tripped, log)
	if err != nil {
		p.Err = err
		return
	}
	c.mu.Lock()
	c.held[p.Org.Name] = held
	c.mu.Unlock()
}

// hold narrows the pending approvals and, when a limit tripped, holds
// what is new.
func (c *Control) hold(dir *state.Dir, p *run.OrgPlan, tripped bool, log *zap.Logger) (Held, error) {
	var out Held
	pending, err := c.narrowPending(dir, p, log)
	out.Pending = ids(pending)
	if err != nil || !tripped {
		return out, err
	}
	var held [][]reconcile.Change
	for i := range pending {
		held = append(held, pending[i].Changes)
	}
	if fresh := approval.Uncovered(p.Plan.Withheld, held...); len(fresh) > 0 {
		now := time.Now().UTC()
		a := state.Approval{ID: state.NewID(), Org: p.Org.Name, Created: now, Updated: now, Run: c.RunID(),
			Reason: p.Plan.Safety.Reason, Status: state.Pending, Changes: fresh}
		if err := dir.SaveApproval(&a); err != nil {
			return out, fmt.Errorf("holding the withheld changes for approval: %w", err)
		}
		log.Warn("safety limit: destructive changes held for approval", zap.String("approval", a.ID),
			zap.Int("changes", len(fresh)), zap.String("reason", a.Reason))
		out.Pending, out.Created = append(out.Pending, a.ID), &a
	}
	p.Plan.Safety = nil // held, not failed: the rest of the plan goes on
	return out, nil
}

// narrowPending drops from organization p's pending approvals what its
// plan no longer withholds (the sources no longer ask for it, or this run
// applies it itself), closing those left empty (dropped), and returns the
// approvals still pending.
func (c *Control) narrowPending(dir *state.Dir, p *run.OrgPlan, log *zap.Logger) ([]state.Approval, error) {
	pending, err := dir.Approvals(p.Org.Name, state.Pending)
	if err != nil {
		return nil, fmt.Errorf("reading the pending approvals: %w", err)
	}
	withheld := &reconcile.Plan{Withheld: p.Plan.Withheld}
	out := pending[:0]
	for _, a := range pending {
		kept, dropped := approval.Narrow(a.Changes, withheld)
		switch {
		case len(dropped) == 0:
			out = append(out, a)
			continue
		case len(kept) == 0:
			err = dir.Close(&a, state.Dropped)
			log.Info("approval dropped: the sources no longer ask for its changes, or this run applies them", zap.String("approval", a.ID))
		default:
			a.Changes, a.Updated, a.Run = kept, time.Now().UTC(), c.RunID()
			err = dir.SaveApproval(&a)
			log.Info("approval narrowed: the sources no longer ask for some of its changes, or this run applies them",
				zap.String("approval", a.ID), zap.Int("dropped", len(dropped)), zap.Int("left", len(kept)))
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

// Applied records organization r.Org's run (history, run record, report)
// and notifies about it. A dry run records nothing.
func (c *Control) Applied(r *run.Result) {
	if r.Mode == run.Dry {
		return
	}
	c.mu.Lock()
	p, held, start, approvalID, cfg := c.plans[r.Org.Name], c.held[r.Org.Name], c.start, c.approval, c.cfg
	c.mu.Unlock()
	rec, entries := record(r, p, held, start, approvalID, rulesOf(cfg, r.Org))
	c.mu.Lock()
	c.done.Runs = append(c.done.Runs, *rec)
	c.done.Entries = append(c.done.Entries, entries...)
	c.mu.Unlock()
	if dir := c.StateDir(); dir != nil {
		if err := dir.AppendHistory(entries); err != nil {
			c.log.Error("history: the applied changes could not be recorded", zap.Error(err))
		}
		if err := dir.AppendRun(rec); err != nil {
			c.log.Error("the run could not be recorded", zap.Error(err))
		}
	}
	c.notifyRun(context.Background(), r, p, held)
}

// record is the run record of r and its history entries.
func record(r *run.Result, p *run.OrgPlan, held Held, start time.Time, approvalID string, rules map[string]string) (*state.Run, []state.Entry) {
	end := time.Now().UTC()
	rec := &state.Run{ID: runID(start), Org: r.Org.Name, Start: start.UTC(), End: end, Mode: modeName(r.Mode, approvalID),
		Result: state.RunSuccess, Changes: r.ByKind, Requests: r.Stats.Total(), Status429: r.Stats.TooManyRequests,
		Approval: strings.Join(held.Pending, ",")}
	if approvalID != "" {
		rec.Approval = approvalID
	}
	if len(held.Pending) > 0 {
		rec.Result = state.RunHeld
	}
	if r.Err != nil {
		rec.Result, rec.Error = state.RunFailure, r.Err.Error()
	}
	if r.Applied == nil || p == nil || p.Plan == nil {
		return rec, nil
	}
	rec.Failures = len(r.Applied.Failures)
	a := state.Applied{Run: rec.ID, Org: r.Org.Name, Time: end, TestOnly: r.Mode == run.TestOnly, Approval: approvalID,
		Unmatched: unmatchedKeys(p.Plan), Rules: rules}
	return rec, a.Entries(p.Plan.Changes, r.Applied.Failures)
}

// rulesOf names, by target group of organization t (lower case), the
// mapping rules that give it: the exact rules, and the pattern rules
// whose target is a name, not a substitution.
func rulesOf(cfg *config.Config, t *config.NamedTarget) map[string]string {
	out := map[string]string{}
	for i, r := range cfg.Mapping {
		what := fmt.Sprintf("mapping[%d] (directory %q)", i, r.Directory)
		if r.Pattern != "" {
			what = fmt.Sprintf("mapping[%d] (pattern %q)", i, r.Pattern)
		}
		for _, target := range r.Targets {
			org, g := config.SplitGroup(target)
			if strings.Contains(g, "$") || !(org == t.Name || (org == "" && t.Name == cfg.Primary().Name)) {
				continue
			}
			if k := strings.ToLower(g); out[k] == "" {
				out[k] = what
			} else {
				out[k] += ", " + what
			}
		}
	}
	return out
}

// modeName is a run record's mode.
func modeName(mode run.Mode, approvalID string) string {
	switch {
	case approvalID != "":
		return "approve"
	case mode == run.TestOnly:
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

// CheckReport checks a --report path before the run.
func CheckReport(path string) error {
	if path == "" {
		return nil
	}
	_, err := report.Format(path)
	return err
}

// WriteReport writes what the runs heard did to path, as CSV or HTML by
// its extension.
func (c *Control) WriteReport(path string) error {
	format, err := report.Format(path)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return atomicfile.Write(path, func(w io.Writer) error { return c.done.Write(w, format) })
}

// TakeRuns returns the run records heard since the last call.
func (c *Control) TakeRuns() []state.Run {
	c.mu.Lock()
	defer c.mu.Unlock()
	runs := c.done.Runs
	c.done = report.Report{}
	return runs
}
