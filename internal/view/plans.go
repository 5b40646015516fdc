package view

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/orgsync/orgsync/internal/run"
)

// Plans writes the plans as the safety gate lets them through
// (run.Plans.Gated), as text or as JSON (format "json"): the plan itself
// for a single target, else each organization's in the configuration's
// order, with its error in place of a plan that failed. A single target's
// failed plan is not written: its error is returned.
func Plans(w io.Writer, ps *run.Plans, format string, multiOrg bool) error {
	if err := ps.Gated[0].Err(); !multiOrg && err != nil {
		return err
	}
	if format == FormatJSON {
		return writePlansJSON(w, ps, multiOrg)
	}
	for i, g := range ps.Gated {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := OrgPlan(w, g.OrgPlan(), multiOrg); err != nil {
			return err
		}
	}
	return nil
}

// PlansAsReady returns what writes each organization's gated plan as it
// is ready (run.Job.Sync's show) as OrgPlan does, a blank line between
// organizations (in the order they are ready; Sync shows one at a time).
func PlansAsReady(w io.Writer, multiOrg bool) func(g *run.Gated) error {
	shown := 0
	return func(g *run.Gated) error {
		if shown++; shown > 1 {
			fmt.Fprintln(w)
		}
		return OrgPlan(w, g.OrgPlan(), multiOrg)
	}
}

// OrgPlan writes one organization's plan as text: under a heading with
// its name and id when there are several, its error in place of a plan
// that failed (nothing for a single target: the error is reported); with
// incremental runs on, after how the organization was read and why.
func OrgPlan(w io.Writer, p *run.OrgPlan, multiOrg bool) error {
	if !multiOrg {
		if p.Err != nil {
			return nil
		}
		reading(w, p)
		return Plan(w, p.Plan)
	}
	fmt.Fprintf(w, "== organization %s (%s)\n", p.Org.Name, p.Org.OrgID)
	if p.Err != nil {
		_, err := fmt.Fprintf(w, "! failed: %v\n", p.Err)
		return err
	}
	reading(w, p)
	return Plan(w, p.Plan)
}

// reading writes how the organization was read, with incremental runs on
// (which give a reason), e.g. "# incremental run: last full read 3h ago,
// next in 21h".
func reading(w io.Writer, p *run.OrgPlan) {
	if p.Read.Reason != "" {
		fmt.Fprintf(w, "# %s\n", p.Read)
	}
}

// writePlansJSON writes the plans as JSON: the plan itself for a single target
// (PlanJSON), else {formatVersion, organizations: [...]}.
func writePlansJSON(w io.Writer, ps *run.Plans, multiOrg bool) error {
	if !multiOrg {
		p := ps.Gated[0].OrgPlan()
		return PlanJSON(w, p.Plan, readingOf(p))
	}
	out := plansJSON{FormatVersion: PlanFormatVersion, Organizations: make([]orgPlanJSON, len(ps.Gated))}
	for i, g := range ps.Gated {
		o, err := newOrgPlanJSON(g.OrgPlan())
		if err != nil {
			return err
		}
		out.Organizations[i] = o
	}
	return indentedJSON(w, out)
}

// readingOf is how p's organization was read, nil without incremental
// runs.
func readingOf(p *run.OrgPlan) *run.Reading {
	if p.Read.Reason == "" {
		return nil
	}
	return &p.Read
}

// indentedJSON writes v as JSON indented by two spaces, and a newline.
func indentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
