package run

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/orgsync/orgsync/reconcile"
)

// WriteText writes the plans as text: the plan itself for a single target
// (nothing when it failed: the error is reported), else each
// organization's under a heading, its error in place of a failed plan, a
// blank line between organizations.
func (ps *Plans) WriteText(w io.Writer, multiOrg bool) error {
	for i, p := range ps.Orgs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := p.WriteText(w, multiOrg); err != nil {
			return err
		}
	}
	return nil
}

// WriteText writes one organization's plan as text (see Plans.WriteText).
func (p *OrgPlan) WriteText(w io.Writer, multiOrg bool) error {
	if !multiOrg {
		if p.Err != nil {
			return nil
		}
		return p.Plan.Render(w)
	}
	fmt.Fprintf(w, "== organization %s (%s)\n", p.Org.Name, p.Org.OrgID)
	if p.Err != nil {
		_, err := fmt.Fprintf(w, "! failed: %v\n", p.Err)
		return err
	}
	return p.Plan.Render(w)
}

// orgPlanJSON is one organization's part of the JSON plan: its name and
// id, then the fields of its plan (reconcile.Plan.RenderJSON's) or the
// error that stopped it.
type orgPlanJSON struct {
	Name   string            `json:"name"`
	OrgID  string            `json:"orgId"`
	Error  string            `json:"error,omitempty"`
	Counts *reconcile.Counts `json:"counts,omitempty"`
	*reconcile.Plan
}

// MarshalJSON writes the organization's part of the JSON plan.
func (p *OrgPlan) MarshalJSON() ([]byte, error) {
	o := orgPlanJSON{Name: p.Org.Name, OrgID: p.Org.OrgID, Plan: p.Plan}
	if p.Err != nil {
		o.Error = p.Err.Error()
	} else {
		c := p.Plan.Counts()
		o.Counts = &c
	}
	return json.Marshal(o)
}

// WriteJSON writes the plans as JSON: the plan itself for a single target
// (reconcile.Plan.RenderJSON; a failed plan is the error returned), else
// {formatVersion, organizations: [...]} in the configuration's order.
func (ps *Plans) WriteJSON(w io.Writer, multiOrg bool) error {
	if !multiOrg {
		if p := ps.Orgs[0]; p.Err != nil {
			return p.Err
		}
		return ps.Orgs[0].Plan.RenderJSON(w)
	}
	out := struct {
		FormatVersion int        `json:"formatVersion"`
		Organizations []*OrgPlan `json:"organizations"`
	}{FormatVersion: reconcile.PlanFormatVersion, Organizations: ps.Orgs}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
