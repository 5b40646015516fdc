package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/orgsync/orgsync/internal/demo"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/simhost"
)

// runDemo starts the simulator in-process with the two example
// organizations and syncs an example into them: the plan, the result, and
// a second plan that has nothing to do.
func runDemo(ctx context.Context, io stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync demo", flag.ContinueOnError)
	lf := addLogFlags(fs)
	name := fs.String("source", "multiorg", "example to sync (multiorg: a CSV file into both organizations; the others into the first): "+demo.Names())
	review := fs.Bool("review", false, "the change-control walk-through on the csv example: plan --out, show, apply with removals held, approve, history, report, status page")
	serve := fs.Duration("serve", 0, "with --review, serve the status page on loopback this long")
	if ok, code := parseFlags(fs, args, io, 0); !ok {
		return code
	}
	var rd *reviewDemo
	if *review {
		*name, rd = "csv", &reviewDemo{serve: *serve}
	}
	example, ok := demo.Examples[*name]
	if !ok {
		fmt.Fprintf(io.err, "orgsync demo: --source %q: use one of %s%s\n", *name, demo.Names(), didYouMean(*name, slices.Sorted(maps.Keys(demo.Examples))))
		return exitError
	}
	if lf.level == "" {
		lf.level = "warn" // the demo prints the plans; the logs would repeat them
	}
	if err := runExample(ctx, io, lf, example, rd); err != nil {
		return fail(io, fs.Name(), err)
	}
	return exitOK
}

// runExample runs the simulator with the example organizations on a
// loopback port (and what the example reads, when it needs a server) and
// syncs the example into them; with review, it walks through change
// control instead.
func runExample(ctx context.Context, io stdio, lf *logFlags, example demo.Example, review *reviewDemo) error {
	start := time.Now()
	d, err := demo.Start(ctx, example, io.out)
	if err != nil {
		return err
	}
	defer d.Close()
	if review != nil {
		if err := review.prepare(d.Config); err != nil {
			return err
		}
	}
	e, ok := (&setupFlags{config: d.Config, log: lf}).setup(io)
	if !ok {
		return fmt.Errorf("the example configuration does not load")
	}
	if review != nil {
		err = review.steps(ctx, io, e)
	} else {
		err = demoSteps(ctx, io, e)
	}
	if err != nil {
		return err
	}
	requests, tooMany := simhost.Totals(d.Sim)
	fmt.Fprintf(io.out, "\nIn sync. The simulator answered %d requests, %d of them 429; the demo took %s.\n",
		requests, tooMany, time.Since(start).Round(time.Millisecond))
	return nil
}

// demoSteps plans, syncs and plans again, failing when the second plan is
// not empty.
func demoSteps(ctx context.Context, io stdio, e *env) error {
	j, err := e.job(run.Overrides{}, true)
	if err != nil {
		return err
	}
	fmt.Fprintln(io.out, "\n== 1. orgsync plan: what a sync would change")
	plans, err := printPlans(ctx, j, io.out, "text")
	if err != nil {
		return err
	}
	fmt.Fprintln(io.out, "\n== 2. orgsync sync: apply it")
	res, err := j.ApplyAll(ctx, plans, run.Real)
	for _, r := range res {
		e.printResult(io, r, e.cfg.MultiOrg())
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(io.out, "\n== 3. orgsync plan again: nothing left to do")
	again, err := printPlans(ctx, j, io.out, "text")
	if err != nil {
		return err
	}
	for _, p := range again.Orgs {
		if p.Err != nil {
			return p.Err
		}
		if !p.Plan.Empty() {
			return fmt.Errorf("the second plan of %s is not empty: the sync did not converge", p.Org.Name)
		}
	}
	return nil
}
