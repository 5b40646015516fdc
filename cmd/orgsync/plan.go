package main

import (
	"context"
	"flag"
	"io"
	"strings"

	"go.uber.org/zap/zapcore"
)

// runPlan is the dry run: it prints the plan and changes nothing.
func runPlan(ctx context.Context, io stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync plan", flag.ContinueOnError)
	sf := addSetupFlags(fs)
	output := fs.String("output", "text", "plan format: text or json")
	detailed := fs.Bool("detailed-exitcode", false, "exit 0 when there is nothing to do, 2 when there are changes, 1 on error")
	explain := fs.String("explain", "", "after the plan, show for this user (email or username) which mapping rule or expression gave each group")
	scope := addScopeFlags(fs)
	e, code, ok := sf.start(fs, args, io, 0, output)
	if !ok {
		return code
	}
	if err := scope.apply(e.cfg); err != nil {
		return fail(io, fs.Name(), err)
	}
	e.explain = strings.TrimSpace(*explain)
	p, err := e.printPlan(ctx, io.out, *output)
	if err != nil {
		return fail(io, fs.Name(), err)
	}
	if e.explain != "" {
		w := io.out
		if *output == "json" {
			w = io.err // the plan on stdout stays one JSON document
		}
		e.writeExplain(w, p)
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
