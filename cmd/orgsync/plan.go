package main

import (
	"context"
	"flag"
	"io"

	"go.uber.org/zap/zapcore"
)

// runPlan is the dry run: it prints the plan and changes nothing.
func runPlan(ctx context.Context, io stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync plan", flag.ContinueOnError)
	sf := addSetupFlags(fs)
	output := fs.String("output", "text", "plan format: text or json")
	detailed := fs.Bool("detailed-exitcode", false, "exit 0 when there is nothing to do, 2 when there are changes, 1 on error")
	e, code, ok := sf.start(fs, args, io, 0, output)
	if !ok {
		return code
	}
	p, err := e.printPlan(ctx, io.out, *output)
	if err != nil {
		return fail(io, fs.Name(), err)
	}
	rep, _ := e.apply(ctx, p, applyDry)
	e.summary(rep, nil)
	if *detailed && !p.plan.InSync() {
		return exitChanges
	}
	return exitOK
}

// printPlan computes the plan and writes it to w as text or json.
func (e *env) printPlan(ctx context.Context, w io.Writer, format string) (*planned, error) {
	p, err := e.makePlan(ctx)
	if err != nil {
		return nil, err
	}
	e.logChanges(p.plan, zapcore.DebugLevel)
	if format == "json" {
		err = p.plan.RenderJSON(w)
	} else {
		err = p.plan.Render(w)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}
