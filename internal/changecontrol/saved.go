package changecontrol

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/planfile"
	"github.com/orgsync/orgsync/internal/run"
)

// KeepFingerprints asks the runs heard from now on for the fingerprints
// of the organizations' users, which a saved plan keeps (call it before
// planning).
func (c *Control) KeepFingerprints() {
	c.mu.Lock()
	c.prints = true
	c.mu.Unlock()
}

// SavePlan writes plans to path with what CheckSaved checks them by.
func (c *Control) SavePlan(path, toolVersion string, plans *run.Plans) error {
	cfg := c.config()
	cfgPrint, err := planfile.FileFingerprint(cfg.File)
	if err != nil {
		return err
	}
	f := &planfile.File{FormatVersion: planfile.FormatVersion, ToolVersion: toolVersion, Created: time.Now().UTC(),
		ConfigFile: cfg.File, Config: cfgPrint, Sources: planfile.UsersFingerprint(plans.Sources.Users)}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range plans.Orgs {
		if p.Err != nil {
			return fmt.Errorf("organization %s could not be planned: no plan saved", p.Org.Name)
		}
		f.Organizations = append(f.Organizations, planfile.Org{Name: p.Org.Name, OrgID: p.Org.OrgID, Current: c.current[p.Org.Name], Plan: p.Plan})
	}
	return f.Write(path)
}

// CheckSaved plans the organizations of f afresh with j (made with c as
// its observer, for f's organizations, in a dry mode) and returns the
// plans when they are f's: made from this configuration, no older than
// maxAge, planning the same changes. Otherwise the error lists every
// difference. The plans returned are then held or stopped as a real run's
// (HoldOrStop), ready for j.ApplyAll.
func (c *Control) CheckSaved(ctx context.Context, j *run.Job, f *planfile.File, maxAge time.Duration) (*run.Plans, error) {
	var problems []string
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
	for _, p := range plans.Orgs {
		saved, ok := f.Org(p.Org.Name)
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("organization %s: not in the saved plan", p.Org.Name))
			continue
		case p.Err != nil:
			problems = append(problems, fmt.Sprintf("organization %s: %v", p.Org.Name, p.Err))
			continue
		}
		for _, d := range planfile.Diff(saved.Plan, p.Plan) {
			problems = append(problems, fmt.Sprintf("organization %s: %s", p.Org.Name, d))
		}
		c.notePrints(f, saved, p, plans)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("refused: the saved plan is not what a fresh plan does:\n  %s", strings.Join(problems, "\n  "))
	}
	for _, p := range plans.Orgs {
		c.HoldOrStop(p)
	}
	return plans, nil
}

// notePrints logs which of the sources and the organization changed since
// the plan was saved in ways that do not change the plan.
func (c *Control) notePrints(f *planfile.File, saved *planfile.Org, p *run.OrgPlan, plans *run.Plans) {
	if planfile.UsersFingerprint(plans.Sources.Users) != f.Sources {
		c.log.Info("the sources changed since the plan was saved, not in a way that changes this plan")
	}
	c.mu.Lock()
	cur := c.current[p.Org.Name]
	c.mu.Unlock()
	if cur != saved.Current {
		c.log.Info("the organization changed since the plan was saved, not in a way that changes this plan", zap.String("org", p.Org.Name))
	}
}
