package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/planfile"
)

// savePlan writes the plans to path with what apply FILE checks them by.
func (e *env) savePlan(path string, plans []*planned) error {
	cfgPrint, err := planfile.FileFingerprint(e.cfg.File)
	if err != nil {
		return err
	}
	f := &planfile.File{FormatVersion: planfile.FormatVersion, ToolVersion: version, Created: time.Now().UTC(),
		ConfigFile: e.cfg.File, Config: cfgPrint}
	for _, p := range plans {
		if p.err != nil {
			return fmt.Errorf("organization %s could not be planned: no plan saved", p.org.Name)
		}
		f.Sources = planfile.UsersFingerprint(p.desired.users)
		f.Organizations = append(f.Organizations, planfile.Org{Name: p.org.Name, OrgID: p.org.OrgID, Current: p.current, Plan: p.plan})
	}
	return f.Write(path)
}

// runApply applies a saved plan, and only it: it plans afresh and refuses,
// listing the differences, unless the fresh plans are the saved ones.
func runApply(ctx context.Context, io stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync apply", flag.ContinueOnError)
	sf := addSetupFlags(fs)
	maxAge := fs.Duration("max-age", 24*time.Hour, "refuse a saved plan older than this")
	reportFile := addReportFlag(fs)
	e, code, ok := sf.start(fs, args, io, 1, nil)
	if !ok {
		return code
	}
	if fs.NArg() != 1 {
		return fail(io, fs.Name(), errors.New("name the saved plan to apply (orgsync plan --out FILE writes one)"))
	}
	if err := checkReportFlag(*reportFile); err != nil {
		return fail(io, fs.Name(), err)
	}
	f, err := planfile.Read(fs.Arg(0))
	if err != nil {
		return fail(io, fs.Name(), err)
	}
	plans, err := e.checkSaved(ctx, f, *maxAge)
	if err != nil {
		return fail(io, fs.Name(), err)
	}
	fmt.Fprintln(io.out, "a fresh plan is the saved plan: applying it")
	reps, err := e.applyAll(ctx, plans, applyReal)
	for _, rep := range reps {
		e.printResult(io, rep, applyReal)
	}
	if err = errors.Join(err, e.reportTo(io, *reportFile)); err != nil {
		return fail(io, fs.Name(), err)
	}
	return exitOK
}

// checkSaved plans the organizations of f afresh and returns the plans
// when they are f's: made from this configuration, no older than maxAge,
// planning the same changes. Otherwise the error lists every difference.
func (e *env) checkSaved(ctx context.Context, f *planfile.File, maxAge time.Duration) ([]*planned, error) {
	var problems []string
	if age := f.Age(time.Now()); age > maxAge {
		problems = append(problems, fmt.Sprintf("the plan is %s old, more than --max-age %s: make it again", age.Round(time.Second), maxAge))
	}
	if fp, err := planfile.FileFingerprint(e.cfg.File); err != nil || fp != f.Config {
		problems = append(problems, fmt.Sprintf("the configuration %s changed since the plan was made", e.cfg.File))
	}
	e.selected = nil
	for _, o := range f.Organizations {
		t, err := e.target(o.Name)
		if err != nil {
			return nil, err
		}
		e.selected = append(e.selected, t)
	}
	e.keeper.fingerprints = true
	plans, err := e.makePlans(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range plans {
		saved, _ := f.Org(p.org.Name)
		if p.err != nil {
			problems = append(problems, fmt.Sprintf("organization %s: %v", p.org.Name, p.err))
			continue
		}
		for _, d := range planfile.Diff(saved.Plan, p.plan) {
			problems = append(problems, fmt.Sprintf("organization %s: %s", p.org.Name, d))
		}
		e.notePrints(f, saved, p)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("refused: the saved plan is not what a fresh plan does:\n  %s", strings.Join(problems, "\n  "))
	}
	return plans, nil
}

// notePrints logs which of the sources and the organization changed since
// the plan was saved in ways that do not change the plan.
func (e *env) notePrints(f *planfile.File, saved *planfile.Org, p *planned) {
	if planfile.UsersFingerprint(p.desired.users) != f.Sources {
		p.log.Info("the sources changed since the plan was saved, not in a way that changes this plan")
	}
	if p.current != saved.Current {
		p.log.Info("the organization changed since the plan was saved, not in a way that changes this plan")
	}
}

// runShow prints a saved plan as text or JSON.
func runShow(_ context.Context, io stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync show", flag.ContinueOnError)
	output := fs.String("output", "text", "text or json")
	if ok, code := parseFlags(fs, args, io, 1); !ok {
		return code
	}
	if !validOutput(io, fs.Name(), *output) {
		return exitError
	}
	if fs.NArg() != 1 {
		return fail(io, fs.Name(), errors.New("name the saved plan to show (orgsync plan --out FILE writes one)"))
	}
	f, err := planfile.Read(fs.Arg(0))
	if err != nil {
		return fail(io, fs.Name(), err)
	}
	if *output == "json" {
		err = f.Encode(io.out)
	} else {
		err = showText(io, f)
	}
	if err != nil {
		return fail(io, fs.Name(), err)
	}
	return exitOK
}

// showText renders a saved plan for people: its header, then each
// organization's plan.
func showText(io stdio, f *planfile.File) error {
	fmt.Fprint(io.out, f.Summary(time.Now()))
	for _, o := range f.Organizations {
		fmt.Fprintf(io.out, "\n== organization %s (%s)\n", o.Name, o.OrgID)
		if err := o.Plan.Render(io.out); err != nil {
			return err
		}
	}
	return nil
}
