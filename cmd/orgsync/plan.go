package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/orgsync/orgsync/reconcile"
)

// runPlan is the dry run: it prints the plan and changes nothing.
func runPlan(ctx context.Context, io stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync plan", flag.ContinueOnError)
	sf := addSetupFlags(fs)
	output := fs.String("output", "text", "plan format: text or json")
	detailed := fs.Bool("detailed-exitcode", false, "exit 0 when there is nothing to do, 2 when there are changes, 1 on error")
	if ok, code := parseFlags(fs, args, io, 0); !ok {
		return code
	}
	if *output != "text" && *output != "json" {
		fmt.Fprintf(io.err, "orgsync plan: --output %q: use text or json\n", *output)
		return exitError
	}
	e, ok := sf.setup(io)
	if !ok {
		return exitError
	}
	p, err := e.makePlan(ctx)
	if err != nil {
		fmt.Fprintf(io.err, "orgsync plan: %v\n", err)
		return exitError
	}
	if err := printPlan(io.out, p.plan, *output); err != nil {
		fmt.Fprintf(io.err, "orgsync plan: %v\n", err)
		return exitError
	}
	rep, _ := e.apply(ctx, p, applyNone)
	e.summary(rep, nil)
	if *detailed && !p.plan.Empty() {
		return exitChanges
	}
	return exitOK
}

func printPlan(w io.Writer, plan *reconcile.Plan, format string) error {
	if format == "json" {
		return plan.RenderJSON(w)
	}
	return plan.Render(w)
}
