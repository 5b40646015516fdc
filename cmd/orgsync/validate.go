package main

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/util/plural"
)

// runValidate checks the configuration and reads the sources, reporting
// every problem; with --check-target it also signs in to each organization,
// reads one page of users and checks that the target groups the sources'
// users are mapped to exist.
func runValidate(ctx context.Context, std stdio, args []string) int {
	c := newRunCommand("validate", false)
	checkTarget := c.fs.Bool("check-target", false, "also sign in to the service, read one page of users and check that the target groups exist")
	c.setup.broken = func(std stdio, cerr *config.Error, log *zap.Logger) {
		fmt.Fprintln(std.out, cerr.Error()) // validate's findings, as the sources' below
		if v, err := run.ValidateUnloaded(ctx, cerr, log); v != nil {
			printValidation(std, c.fs.Name(), v, err)
			return
		}
		fmt.Fprintf(std.out, "%s: %s to fix\n", cerr.File, plural.Of(len(cerr.Problems), "problem", "problems"))
	}
	_, j, code, ok := c.start(std, args, false)
	if !ok {
		return code
	}
	v, err := j.Validate(ctx, *checkTarget)
	return printValidation(std, c.fs.Name(), v, err)
}

// printValidation prints what validate found, its summary last, and
// returns the exit code.
func printValidation(std stdio, name string, v *run.Validation, err error) int {
	for _, line := range v.Lines {
		fmt.Fprintln(std.out, line)
	}
	if err != nil {
		return fail(std, name, err)
	}
	fmt.Fprintln(std.out, v.Summary())
	if v.Problems > 0 {
		return exitError
	}
	return exitOK
}
