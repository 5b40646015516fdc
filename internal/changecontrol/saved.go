package changecontrol

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/changecontrol/planfile"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/run/approval"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/util/plural"
	"github.com/orgsync/orgsync/reconcile"
)

// KeepFingerprints asks the runs heard from now on for the fingerprints
// of the organizations' users, which a saved plan keeps (call it before
// planning).
func (c *Control) KeepFingerprints() {
	c.mu.Lock()
	c.prints = true
	c.mu.Unlock()
}

// SavePlan writes plans, as the safety gate lets them through, to path
// with what CheckSaved checks them by and the one-off flags they were
// made with.
func (c *Control) SavePlan(path, toolVersion string, plans *run.Plans, flags planfile.Flags) error {
	cfg := c.config()
	cfgPrint, err := planfile.FileFingerprint(cfg.File)
	if err != nil {
		return err
	}
	f := &planfile.File{FormatVersion: planfile.FormatVersion, ToolVersion: toolVersion, Created: time.Now().UTC(),
		ConfigFile: cfg.File, Config: cfgPrint, Sources: planfile.UsersFingerprint(plans.Sources.Users), Flags: flags}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, g := range plans.Gated {
		p := g.OrgPlan()
		if p.Err != nil {
			return fmt.Errorf("organization %s could not be planned: no plan saved", p.Org.Name)
		}
		f.Organizations = append(f.Organizations, planfile.Org{Name: p.Org.Name, OrgID: p.Org.OrgID, Current: c.current[p.Org.Name], Plan: p.Plan,
			Keys: p.Org.PolicyKeys()})
	}
	return f.Write(path)
}

// CheckSaved plans the organizations of f afresh with j (made with c as
// its observer, for f's organizations, with f's flags) and returns the
// plans when they are f's: made from this configuration, no older than
// maxAge, and what the safety gate lets through of them the same changes.
// Otherwise the error lists every reason, a saved change that was applied
// since is said to be so, and the pending approvals that hold changes of
// the saved plan are named, with what decides them. The error is marked
// with its phase: an organization's that could not be planned (read,
// sign-in ...), else run.PhaseSavedPlan. The plans returned are ready for
// j.ApplyAll, whose gate decides again.
func (c *Control) CheckSaved(ctx context.Context, j *run.Job, f *planfile.File, maxAge time.Duration) (*run.Plans, error) {
	var problems, diffs, held []string
	if age := f.Age(time.Now()); age > maxAge {
		problems = append(problems, fmt.Sprintf("the plan is %s old, more than --max-age %s: make it again", age.Round(time.Second), maxAge))
	}
	cfg := c.config()
	if fp, err := planfile.FileFingerprint(cfg.File); err != nil || fp != f.Config {
		problems = append(problems, fmt.Sprintf("the configuration %s changed since the plan was made", cfg.File))
	}
	c.KeepFingerprints()
	plans, err := j.Plan(ctx)
	if err != nil {
		return nil, err
	}
	phase := run.PhaseSavedPlan
	for _, g := range plans.Gated {
		p := g.OrgPlan()
		saved, ok := f.Org(p.Org.Name)
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("organization %s: not in the saved plan", p.Org.Name))
			continue
		case p.Err != nil:
			problems = append(problems, fmt.Sprintf("organization %s: %v", p.Org.Name, p.Err))
			if phase == run.PhaseSavedPlan {
				phase = p.Phase
			}
			continue
		}
		orgDiffs := planfile.Diff(saved.Plan, p.Plan, c.appliedSince(p.Org.Name, f.Created))
		for _, d := range orgDiffs {
			diffs = append(diffs, fmt.Sprintf("organization %s: %s", p.Org.Name, d))
		}
		if len(orgDiffs) > 0 {
			held = append(held, holding(p.Org.Name, saved.Plan, g.Decision().Pending)...)
		}
	}
	refused := func(format string, args ...any) error {
		return run.InPhase(phase, fmt.Errorf(format, args...))
	}
	why := strings.Join(slices.Concat(problems, held, diffs), "\n  ")
	switch {
	case len(diffs) > 0 && plans.InSync():
		return nil, refused("refused: a fresh plan has nothing left to do: the saved plan was applied already, or the sources no longer ask for its changes:\n  %s", why)
	case len(diffs) > 0:
		return nil, refused("refused: the saved plan is not what a fresh plan does:\n  %s", why)
	case len(problems) > 0:
		return nil, refused("refused: a fresh plan is the saved plan, but %s", strings.Join(problems, "; and "))
	}
	c.notePrints(f, plans)
	return plans, nil
}

// holding names the pending approvals of organization org that hold
// changes of the saved plan: the gate holds them back from any plan until
// someone decides.
func holding(org string, saved *reconcile.Plan, pending []store.Approval) []string {
	var out []string
	for _, a := range pending {
		if _, held := approval.Quarantine(saved.Changes, a.Changes); len(held) > 0 {
			n := len(held)
			out = append(out, fmt.Sprintf("organization %s: pending approval %s (held %s: %s) holds %s of the saved plan: "+
				"orgsync approve %[2]s applies them, orgsync reject %[2]s discards them; then plan again", org, a.ID,
				a.Created.Format(time.RFC3339), a.Reason, plural.Of(n, "change", "changes")))
		}
	}
	return out
}

// appliedSince returns when the history says a change of key was applied
// in organization org since since (nothing without a state directory).
func (c *Control) appliedSince(org string, since time.Time) func(key string) (time.Time, bool) {
	dir := c.StateDir()
	if dir == nil {
		return nil
	}
	entries, err := dir.History(store.Filter{Org: org, Since: since})
	if err != nil {
		return nil
	}
	at := map[string]time.Time{}
	for _, e := range entries {
		if e.Result == store.ResultApplied {
			at[strings.ToLower(e.User)] = e.Time
		}
	}
	return func(key string) (time.Time, bool) {
		t, ok := at[strings.ToLower(key)]
		return t, ok
	}
}

// notePrints logs which of the sources and the organizations changed since
// the plan was saved in ways that do not change the plan (it is accepted).
func (c *Control) notePrints(f *planfile.File, plans *run.Plans) {
	if planfile.UsersFingerprint(plans.Sources.Users) != f.Sources {
		c.log.Info("the sources changed since the plan was saved, not in a way that changes this plan")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range plans.Orgs {
		if saved, ok := f.Org(p.Org.Name); ok && c.current[p.Org.Name] != saved.Current {
			c.log.Info("the organization changed since the plan was saved, not in a way that changes this plan", zap.String("org", p.Org.Name))
		}
	}
}
