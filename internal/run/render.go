package run

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/orgsync/orgsync/internal/util/plural"
	"github.com/orgsync/orgsync/reconcile"
)

// WriteText writes the plans as the safety gate lets them through
// (Plans.Gated) as text: the plan itself for a single target (nothing
// when it failed: the error is reported), else each organization's under
// a heading, its error in place of a failed plan, a blank line between
// organizations.
func (ps *Plans) WriteText(w io.Writer, multiOrg bool) error {
	for i, g := range ps.Gated {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := g.OrgPlan().WriteText(w, multiOrg); err != nil {
			return err
		}
	}
	return nil
}

// WriteText writes one organization's plan as text (see Plans.WriteText),
// after how the organization was read when incremental runs are on.
func (p *OrgPlan) WriteText(w io.Writer, multiOrg bool) error {
	if !multiOrg {
		if p.Err != nil {
			return nil
		}
		p.writeRead(w)
		return p.Plan.Render(w)
	}
	fmt.Fprintf(w, "== organization %s (%s)\n", p.Org.Name, p.Org.OrgID)
	if p.Err != nil {
		_, err := fmt.Fprintf(w, "! failed: %v\n", p.Err)
		return err
	}
	p.writeRead(w)
	return p.Plan.Render(w)
}

// writeRead writes how the organization was read, with incremental runs
// on (which give a reason).
func (p *OrgPlan) writeRead(w io.Writer) {
	if p.Read.Reason != "" {
		fmt.Fprintf(w, "# %s\n", p.Read)
	}
}

// orgPlanJSON is one organization's part of the JSON plan: its name and
// id, then the fields of its plan (reconcile.Plan.RenderJSON's) or the
// error that stopped it.
type orgPlanJSON struct {
	Name   string            `json:"name"`
	OrgID  string            `json:"orgId"`
	Error  string            `json:"error,omitempty"`
	Counts *reconcile.Counts `json:"counts,omitempty"`
	Read   *Reading          `json:"read,omitempty"` // with incremental runs on
	*reconcile.Plan
}

// MarshalJSON writes the organization's part of the JSON plan.
func (p *OrgPlan) MarshalJSON() ([]byte, error) {
	o := orgPlanJSON{Name: p.Org.Name, OrgID: p.Org.OrgID, Plan: p.Plan}
	if p.Read.Reason != "" {
		o.Read = &p.Read
	}
	if p.Err != nil {
		o.Error = p.Err.Error()
	} else {
		c := p.Plan.Counts()
		o.Counts = &c
	}
	return json.Marshal(o)
}

// WriteJSON writes the plans as the safety gate lets them through
// (Plans.Gated) as JSON: the plan itself for a single target
// (reconcile.Plan.RenderJSON; a failed plan is the error returned), else
// {formatVersion, organizations: [...]} in the configuration's order.
func (ps *Plans) WriteJSON(w io.Writer, multiOrg bool) error {
	orgs := make([]*OrgPlan, len(ps.Gated))
	for i, g := range ps.Gated {
		orgs[i] = g.OrgPlan()
	}
	if !multiOrg {
		if p := orgs[0]; p.Err != nil {
			return p.Err
		}
		return orgs[0].Plan.RenderJSON(w)
	}
	out := struct {
		FormatVersion int        `json:"formatVersion"`
		Organizations []*OrgPlan `json:"organizations"`
	}{FormatVersion: reconcile.PlanFormatVersion, Organizations: orgs}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WritePlans computes the plans and writes them to w as text or json: the
// plan itself for a single target, else grouped by organization in the
// configuration's order. An organization that failed to plan is shown
// with its error (and fails the run later, in ApplyAll); with a single
// target its error is returned.
func (j *Job) WritePlans(ctx context.Context, w io.Writer, format string) (*Plans, error) {
	plans, err := j.Plan(ctx)
	if err != nil {
		return nil, err
	}
	multi := j.cfg.MultiOrg()
	if p := plans.Gated[0].OrgPlan(); !multi && p.Err != nil {
		return nil, p.Err
	}
	if format == "json" {
		err = plans.WriteJSON(w, multi)
	} else {
		err = plans.WriteText(w, multi)
	}
	if err != nil {
		return nil, err
	}
	return plans, nil
}

// WriteText writes the outcome of an organization's applied plan (nothing
// when it has none), its lines prefixed with the organization's name when
// there are several.
func (r *Result) WriteText(w io.Writer, multiOrg bool) {
	if r == nil || r.Applied == nil {
		return
	}
	verb := "applied"
	if r.Mode == TestOnly {
		verb = "validated by the service (test only, nothing changed)"
	}
	if multiOrg {
		verb = r.Org.Name + ": " + verb
	}
	fmt.Fprintf(w, "%s: %s, %s, %s, %s; %s in all, %d answered 429, in %s\n",
		verb, plural.Of(r.Applied.Requests, "request", "requests"), plural.Of(r.Applied.Entries, "entry", "entries"),
		plural.Of(r.Applied.Invites, "invite operation", "invite operations"), plural.Of(len(r.Applied.Failures), "failure", "failures"),
		plural.Of(r.Stats.Total(), "API request", "API requests"), r.Stats.TooManyRequests, r.Elapsed.Round(1e6))
	if n := r.Applied.Unverified; n > 0 {
		fmt.Fprintf(w, "  %s unverified: they need a user or group that an earlier request creates, which a test-only run does not\n", plural.Of(n, "entry", "entries"))
	}
	for _, f := range r.Applied.Failures {
		fmt.Fprintf(w, "  failed: %s\n", f)
	}
}
