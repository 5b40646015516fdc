package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/orgsync/orgsync/internal/changecontrol/planfile"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/view"
)

// runApply applies a saved plan, and only it: it plans afresh and refuses,
// listing the differences, unless the fresh plans are the saved ones.
func runApply(ctx context.Context, std stdio, args []string) int {
	c := newRunCommand("apply", false)
	maxAge := c.fs.Duration("max-age", 24*time.Hour, "refuse a saved plan older than this (more than 0)")
	c.setup.addReportFlag(c.fs)
	c.maxArgs = 1
	e, code, ok := c.setup.start(c.fs, args, std, 1, nil)
	if !ok {
		return code
	}
	if c.fs.NArg() != 1 {
		return fail(std, c.fs.Name(), errors.New("name the saved plan to apply (orgsync plan --out FILE writes one)"))
	}
	if *maxAge <= 0 {
		return fail(std, c.fs.Name(), fmt.Errorf("--max-age %s: give a duration more than 0, such as 24h", *maxAge))
	}
	f, err := planfile.Read(c.fs.Arg(0))
	if err != nil {
		return fail(std, c.fs.Name(), run.InPhase(run.PhaseSavedPlan, err))
	}
	e.orgs = f.OrgNames()
	ov, err := scopeOverrides(f.Flags)
	var j *run.Job
	if err == nil {
		j, err = e.job(ov, true)
	}
	if err != nil {
		return fail(std, c.fs.Name(), run.InPhase(run.PhaseConfig, fmt.Errorf("the saved plan's flags (%s): %w", f.Flags, err)))
	}
	plans, err := e.control.CheckSaved(ctx, j, f, *maxAge)
	if err != nil {
		return fail(std, c.fs.Name(), err)
	}
	fmt.Fprintln(std.out, "a fresh plan is the saved plan: applying it")
	res, err := j.ApplyAll(ctx, plans, run.Real)
	view.Results(std.out, res, j.MultiOrg())
	return e.end(std, c.fs.Name(), err)
}

// runShow prints a saved plan as text or JSON.
func runShow(_ context.Context, std stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync show", flag.ContinueOnError)
	output := fs.String("output", view.FormatText, "text or json")
	if code, ok := parseFlags(fs, args, std, 1); !ok {
		return code
	}
	if !validOutput(std, fs.Name(), *output) {
		return exitError
	}
	if fs.NArg() != 1 {
		return fail(std, fs.Name(), errors.New("name the saved plan to show (orgsync plan --out FILE writes one)"))
	}
	f, err := planfile.Read(fs.Arg(0))
	if err == nil {
		err = view.SavedPlan(std.out, f, *output, time.Now())
	}
	if err != nil {
		return fail(std, fs.Name(), err)
	}
	return exitOK
}
