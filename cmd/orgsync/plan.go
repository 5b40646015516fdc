package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/orgsync/orgsync/internal/changecontrol/planfile"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/view"
)

// runPlan is the dry run: it prints the plan of every organization, as
// the safety gate would let it through, and changes nothing.
func runPlan(ctx context.Context, std stdio, args []string) int {
	c := newRunCommand("plan", true)
	fs := c.fs
	c.output = fs.String("output", view.FormatText, "plan format: text or json")
	c.addFullFlag()
	detailed := fs.Bool("detailed-exitcode", false, "exit 0 when there is nothing to do, 2 when there are changes, 1 on error")
	fs.StringVar(&c.ov.Explain, "explain", "", "after the plan, show for this user (email or username) which mapping rule or expression gave each group")
	out := fs.String("out", "", "also save the plan, with the one-off flags that shaped it, to this file, for review and orgsync apply FILE")
	e, j, code, ok := c.start(std, args, true)
	if !ok {
		return code
	}
	if *out != "" {
		e.control.KeepFingerprints()
	}
	plans, err := j.Plan(ctx)
	if err == nil {
		err = view.Plans(std.out, plans, *c.output, j.MultiOrg())
	}
	if err != nil {
		return fail(std, fs.Name(), err)
	}
	w := std.out // the explanation and the note of the plan saved
	if *c.output == "json" {
		w = std.err // the plan on stdout stays one JSON document
	}
	view.Explain(w, j.Explain(plans))
	if _, err := j.ApplyAll(ctx, plans, run.Dry); err != nil {
		return fail(std, fs.Name(), err)
	}
	if *out != "" {
		flags, err := c.savedFlags()
		if err == nil {
			err = e.control.SavePlan(*out, version, plans, flags)
		}
		if err != nil {
			return fail(std, fs.Name(), fmt.Errorf("--out: %w", err))
		}
		fmt.Fprintf(w, "plan saved to %s: review it (orgsync show %[1]s), then apply exactly it with orgsync apply %[1]s\n", *out)
	}
	if *detailed && !plans.InSync() {
		return exitChanges
	}
	return exitOK
}

// savedFlags are the one-off flags a saved plan keeps, for apply: the
// scope flags and --orgs, the users file's path made absolute.
func (c *runCommand) savedFlags() (planfile.Flags, error) {
	f := *c.scope
	f.Orgs = c.setup.orgs
	if f.UsersFile == "" {
		return f, nil
	}
	abs, err := filepath.Abs(f.UsersFile)
	f.UsersFile = abs
	return f, err
}
