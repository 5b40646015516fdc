package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"go.uber.org/zap/zapcore"

	"github.com/orgsync/orgsync/reconcile"
)

// runPlan is the dry run: it prints the plan of every organization and
// changes nothing.
func runPlan(ctx context.Context, io stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync plan", flag.ContinueOnError)
	sf := addSetupFlags(fs)
	sf.addOrgsFlag(fs)
	output := fs.String("output", "text", "plan format: text or json")
	detailed := fs.Bool("detailed-exitcode", false, "exit 0 when there is nothing to do, 2 when there are changes, 1 on error")
	explain := fs.String("explain", "", "after the plan, show for this user (email or username) which mapping rule or expression gave each group")
	scope := addScopeFlags(fs)
	out := fs.String("out", "", "also save the plan to this file, for review and orgsync apply FILE")
	e, code, ok := sf.start(fs, args, io, 0, output)
	if !ok {
		return code
	}
	e.keeper.fingerprints = *out != ""
	if err := scope.apply(e.cfg); err != nil {
		return fail(io, fs.Name(), err)
	}
	e.explain = strings.TrimSpace(*explain)
	plans, err := e.printPlans(ctx, io.out, *output)
	if err != nil {
		return fail(io, fs.Name(), err)
	}
	if e.explain != "" {
		w := io.out
		if *output == "json" {
			w = io.err // the plan on stdout stays one JSON document
		}
		e.writeExplains(w, plans)
	}
	if _, err := e.applyAll(ctx, plans, applyDry); err != nil {
		return fail(io, fs.Name(), err)
	}
	if *out != "" {
		if err := e.savePlan(*out, plans); err != nil {
			return fail(io, fs.Name(), fmt.Errorf("--out: %w", err))
		}
		fmt.Fprintf(io.err, "plan saved to %s: review it (orgsync show %[1]s), then apply exactly it with orgsync apply %[1]s\n", *out)
	}
	if *detailed && !inSync(plans) {
		return exitChanges
	}
	return exitOK
}

// inSync reports whether no organization's plan has anything to do.
func inSync(plans []*planned) bool {
	for _, p := range plans {
		if p.plan != nil && !p.plan.InSync() {
			return false
		}
	}
	return true
}

// printPlans computes the plans and writes them to w as text or json: the
// plan itself for a single target, else grouped by organization in the
// configuration's order. An organization that failed to plan is shown
// with its error (and fails the run later, in applyAll).
func (e *env) printPlans(ctx context.Context, w io.Writer, format string) ([]*planned, error) {
	plans, err := e.makePlans(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range plans {
		p.logChanges(zapcore.DebugLevel)
	}
	switch {
	case !e.cfg.MultiOrg() && plans[0].err != nil:
		return nil, plans[0].err
	case !e.cfg.MultiOrg() && format == "json":
		err = plans[0].plan.RenderJSON(w)
	case format == "json":
		err = renderOrgsJSON(w, plans)
	default:
		for i, p := range plans {
			if i > 0 {
				fmt.Fprintln(w) // a blank line between organizations
			}
			if err = e.renderPlan(w, p); err != nil {
				break
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return plans, nil
}

// renderPlan writes one organization's plan as text: the plan itself for
// a single target (nothing when it failed: the error is reported), else
// under a heading, its error in place of a failed plan.
func (e *env) renderPlan(w io.Writer, p *planned) error {
	if !e.cfg.MultiOrg() {
		if p.err != nil {
			return nil
		}
		return p.plan.Render(w)
	}
	fmt.Fprintf(w, "== organization %s (%s)\n", p.org.Name, p.org.OrgID)
	if p.err != nil {
		_, err := fmt.Fprintf(w, "! failed: %v\n", p.err)
		return err
	}
	return p.plan.Render(w)
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

// renderOrgsJSON writes {formatVersion, organizations: [...]}.
func renderOrgsJSON(w io.Writer, plans []*planned) error {
	out := struct {
		FormatVersion int           `json:"formatVersion"`
		Organizations []orgPlanJSON `json:"organizations"`
	}{FormatVersion: reconcile.PlanFormatVersion}
	for _, p := range plans {
		o := orgPlanJSON{Name: p.org.Name, OrgID: p.org.OrgID, Plan: p.plan}
		if p.err != nil {
			o.Error = p.err.Error()
		} else {
			c := p.plan.Counts()
			o.Counts = &c
		}
		out.Organizations = append(out.Organizations, o)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
