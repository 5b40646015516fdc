package main

import (
	"context"
	"fmt"
	"io"

	"github.com/orgsync/orgsync/internal/run"
)

// runPlan is the dry run: it prints the plan of every organization and
// changes nothing.
func runPlan(ctx context.Context, io stdio, args []string) int {
	c := newRunCommand("plan", true)
	fs := c.fs
	c.output = fs.String("output", "text", "plan format: text or json")
	detailed := fs.Bool("detailed-exitcode", false, "exit 0 when there is nothing to do, 2 when there are changes, 1 on error")
	c.explain = fs.String("explain", "", "after the plan, show for this user (email or username) which mapping rule or expression gave each group")
	out := fs.String("out", "", "also save the plan to this file, for review and orgsync apply FILE")
	e, j, code, ok := c.start(io, args, true)
	if !ok {
		return code
	}
	if *out != "" {
		e.control.KeepFingerprints()
	}
	plans, err := printPlans(ctx, j, io.out, *c.output)
	if err != nil {
		return fail(io, fs.Name(), err)
	}
	w := io.out
	if *c.output == "json" {
		w = io.err // the plan on stdout stays one JSON document
	}
	j.Explain(w, plans)
	if _, err := j.ApplyAll(ctx, plans, run.Dry); err != nil {
		return fail(io, fs.Name(), err)
	}
	if *out != "" {
		if err := e.savePlan(*out, plans); err != nil {
			return fail(io, fs.Name(), fmt.Errorf("--out: %w", err))
		}
		fmt.Fprintf(io.err, "plan saved to %s: review it (orgsync show %[1]s), then apply exactly it with orgsync apply %[1]s\n", *out)
	}
	if *detailed && !plans.InSync() {
		return exitChanges
	}
	return exitOK
}

// printPlans computes the plans and writes them to w as text or json: the
// plan itself for a single target, else grouped by organization in the
// configuration's order. An organization that failed to plan is shown
// with its error (and fails the run later, in ApplyAll); with a single
// target its error is returned.
func printPlans(ctx context.Context, j *run.Job, w io.Writer, format string) (*run.Plans, error) {
	plans, err := j.Plan(ctx)
	if err != nil {
		return nil, err
	}
	multi := j.Config().MultiOrg()
	if p := plans.Orgs[0]; !multi && p.Err != nil {
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
