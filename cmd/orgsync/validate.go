package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/orgsync/orgsync/target/umapi"
)

// runValidate checks the configuration and reads the sources, reporting
// every problem; with --check-target it also signs in to the service and
// reads one page of users.
func runValidate(ctx context.Context, io stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync validate", flag.ContinueOnError)
	sf := addSetupFlags(fs)
	checkTarget := fs.Bool("check-target", false, "also sign in to the service and read one page of users")
	e, code, ok := sf.start(fs, args, io, 0, nil)
	if !ok {
		return code
	}
	m, err := e.cfg.Mapper()
	if err != nil {
		return fail(io, fs.Name(), err)
	}
	d, err := e.readSources(ctx, m)
	if err != nil {
		return fail(io, fs.Name(), err)
	}
	for _, p := range d.problems {
		fmt.Fprintf(io.out, "problem: %s\n", p)
	}
	for _, n := range d.notices {
		fmt.Fprintf(io.out, "notice: %s\n", n)
	}
	if *checkTarget {
		if err := e.checkTarget(ctx); err != nil {
			return fail(io, fs.Name(), fmt.Errorf("target: %w", err))
		}
		fmt.Fprintln(io.out, "target: signed in and read the first page of users")
	}
	fmt.Fprintf(io.out, "%s: configuration valid; %d desired user(s) from %d source(s); %d problem(s); %d notice(s)\n",
		e.cfg.File, len(d.users), len(e.cfg.Sources), len(d.problems), len(d.notices))
	if len(d.problems) > 0 {
		return exitError
	}
	return exitOK
}

// checkTarget signs in and reads the first page of the organization.
func (e *env) checkTarget(ctx context.Context) error {
	c, err := e.client()
	if err != nil {
		return err
	}
	_, err = c.OrgUsersPage(ctx, 0, umapi.OrgUsersOptions{})
	return err
}
