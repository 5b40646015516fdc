package main

import (
	"context"
	"fmt"
)

// runValidate checks the configuration and reads the sources, reporting
// every problem; with --check-target it also signs in to each organization,
// reads one page of users and checks that the target groups the sources'
// users are mapped to exist.
func runValidate(ctx context.Context, std stdio, args []string) int {
	c := newRunCommand("validate", false)
	checkTarget := c.fs.Bool("check-target", false, "also sign in to the service, read one page of users and check that the target groups exist")
	_, j, code, ok := c.start(std, args, false)
	if !ok {
		return code
	}
	v, err := j.Validate(ctx, *checkTarget)
	for _, line := range v.Lines {
		fmt.Fprintln(std.out, line)
	}
	if err != nil {
		return fail(std, c.fs.Name(), err)
	}
	fmt.Fprintln(std.out, v.Summary())
	if v.Problems > 0 {
		return exitError
	}
	return exitOK
}
