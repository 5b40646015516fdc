package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
)

// runSync applies the plans and prints what was done.
func runSync(ctx context.Context, io stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync sync", flag.ContinueOnError)
	sf := addSetupFlags(fs)
	sf.addOrgsFlag(fs)
	testOnly := fs.Bool("test-only", false, "send the requests with testOnly: the service validates them and changes nothing")
	scope := addScopeFlags(fs)
	reportFile := addReportFlag(fs)
	e, code, ok := sf.start(fs, args, io, 0, nil)
	if !ok {
		return code
	}
	if err := scope.apply(e.cfg); err != nil {
		return fail(io, fs.Name(), err)
	}
	if err := checkReportFlag(*reportFile); err != nil {
		return fail(io, fs.Name(), err)
	}
	mode := applyReal
	if *testOnly {
		mode = applyTestOnly
	}
	reps, err := e.syncEach(ctx, io.out, mode)
	for _, rep := range reps {
		e.printResult(io, rep, mode)
	}
	err = errors.Join(err, e.reportTo(io, *reportFile))
	if err != nil {
		return fail(io, fs.Name(), err)
	}
	return exitOK
}

// printResult writes the outcome of an organization's applied plan, its
// lines prefixed with the organization's name when there are several.
func (e *env) printResult(io stdio, rep *runReport, mode applyMode) {
	if rep == nil || rep.result == nil {
		return
	}
	defer e.printHeld(io, rep)
	verb := "applied"
	if mode == applyTestOnly {
		verb = "validated by the service (test only, nothing changed)"
	}
	if e.cfg.MultiOrg() {
		verb = rep.org.Name + ": " + verb
	}
	fmt.Fprintf(io.out, "%s: %d requests, %d entries, %d invite operations, %d failures; %d API requests in all, %d answered 429, in %s\n",
		verb, rep.result.Requests, rep.result.Entries, rep.result.Invites, len(rep.result.Failures),
		rep.stats.Total(), rep.stats.TooManyRequests, rep.elapsed.Round(1e6))
	if n := rep.result.Unverified; n > 0 {
		fmt.Fprintf(io.out, "  %d entries unverified: they need a user or group that an earlier request creates, which a test-only run does not\n", n)
	}
	for _, f := range rep.result.Failures {
		fmt.Fprintf(io.out, "  failed: %s\n", f)
	}
}
