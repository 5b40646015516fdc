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
	if ok, code := parseFlags(fs, args, io, 0); !ok {
		return code
	}
	e, ok := sf.setup(io)
	if !ok {
		return exitError
	}
	m, err := e.cfg.Mapper()
	if err != nil {
		fmt.Fprintf(io.err, "orgsync validate: %v\n", err)
		return exitError
	}
	d, err := e.readSources(ctx, m)
	if err != nil {
		fmt.Fprintf(io.err, "orgsync validate: %v\n", err)
		return exitError
	}
	for _, p := range d.problems {
		fmt.Fprintf(io.out, "problem: %s\n", p)
	}
	if *checkTarget {
		if err := e.checkTarget(ctx); err != nil {
			fmt.Fprintf(io.err, "orgsync validate: target: %v\n", err)
			return exitError
		}
		fmt.Fprintln(io.out, "target: signed in and read the first page of users")
	}
	fmt.Fprintf(io.out, "%s: configuration valid; %d desired user(s) from %d source(s); %d problem(s)\n",
		e.cfg.File, len(d.users), len(e.cfg.Sources), len(d.problems))
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
