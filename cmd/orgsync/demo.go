package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/orgsync/orgsync/internal/demo"
	"github.com/orgsync/orgsync/internal/demo/steps"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/util/suggest"
)

// runDemo starts the simulator in-process with the two example
// organizations and syncs an example into them: the plan, the result, and
// a second plan that has nothing to do.
func runDemo(ctx context.Context, std stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync demo", flag.ContinueOnError)
	lf := addLogFlags(fs)
	name := fs.String("source", "multiorg", "example to sync (multiorg: a CSV file into both organizations; the others into the first): "+demo.Names())
	review := fs.Bool("review", false, "the change-control walk-through on the csv example: plan --out, show, apply with removals held, approve, history, report, status page")
	serve := fs.Duration("serve", 0, "with --review, serve the status page on loopback this long")
	if code, ok := parseFlags(fs, args, std, 0); !ok {
		return code
	}
	var rd *steps.Review
	if *review {
		*name, rd = "csv", &steps.Review{Serve: *serve, Version: version}
	}
	example, ok := demo.Examples()[*name]
	if !ok {
		fmt.Fprintf(std.err, "orgsync demo: --source %q: use one of %s%s\n", *name, demo.Names(), suggest.DidYouMean(*name, demo.ExampleNames()))
		return exitError
	}
	if lf.level == "" {
		lf.level = "warn" // the demo prints the plans; the logs would repeat them
	}
	if err := demo.Run(ctx, example, std.out, func(d *demo.Setup) error { return demoSteps(ctx, std, lf, d, rd) }); err != nil {
		return fail(std, fs.Name(), err)
	}
	return exitOK
}

// demoSteps runs the demo's steps on the running demo d: plan, sync and
// plan again, or with review the change-control walk-through (its files
// prepared first).
func demoSteps(ctx context.Context, std stdio, lf *logFlags, d *demo.Setup, review *steps.Review) error {
	if review != nil {
		if err := review.Prepare(d.Config); err != nil {
			return err
		}
	}
	e, ok := (&setupFlags{config: d.Config, log: lf}).setup(std)
	if !ok {
		return fmt.Errorf("the example configuration does not load")
	}
	j, err := e.job(run.Overrides{}, true)
	if err != nil {
		return err
	}
	defer e.control.Wait()
	if review != nil {
		return review.Steps(ctx, std.out, j, e.control)
	}
	return steps.Walk(ctx, std.out, j, e.control)
}
