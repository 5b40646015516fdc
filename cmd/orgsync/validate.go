package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source/mapping"
	"github.com/orgsync/orgsync/target/umtarget"
)

// runValidate checks the configuration and reads the sources, reporting
// every problem; with --check-target it also signs in to the service,
// reads one page of users and checks that the target groups the sources'
// users are mapped to exist.
func runValidate(ctx context.Context, io stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync validate", flag.ContinueOnError)
	sf := addSetupFlags(fs)
	checkTarget := fs.Bool("check-target", false, "also sign in to the service, read one page of users and check that the target groups exist")
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
	problems, notices := len(d.problems), len(d.notices)
	for _, n := range d.notices {
		fmt.Fprintf(io.out, "notice: %s\n", n)
	}
	if *checkTarget {
		missing, err := e.checkTarget(ctx, m, d.users)
		if err != nil {
			return fail(io, fs.Name(), fmt.Errorf("target: %w", err))
		}
		fmt.Fprintln(io.out, "target: signed in and read the first page of users")
		p, n := e.reportMissing(io, missing)
		problems, notices = problems+p, notices+n
	}
	leftOut := ""
	if len(d.filtered) > 0 {
		leftOut = fmt.Sprintf(" (%d more left out by a filter or the scope)", len(d.filtered))
	}
	fmt.Fprintf(io.out, "%s: configuration valid; %d desired user(s)%s from %d source(s); %d problem(s); %d notice(s)\n",
		e.cfg.File, len(d.users), leftOut, len(e.cfg.Sources), problems, notices)
	if problems > 0 {
		return exitError
	}
	return exitOK
}

// checkTarget signs in, reads the first page of the organization and
// returns the target groups of the users that do not exist in it.
func (e *env) checkTarget(ctx context.Context, m *mapping.Mapper, users []reconcile.User) ([]string, error) {
	policy, err := e.cfg.ReconcilePolicy(m)
	if err != nil {
		return nil, err
	}
	policy.ManageGroupsOf(users)
	c, err := e.client()
	if err != nil {
		return nil, err
	}
	return umtarget.New(c, umtarget.Options{}).MissingGroups(ctx, policy.ReadScopeFor(users).CheckGroups)
}

// reportMissing prints a line for each missing target group: a notice
// for one that sync creates (policy.createUserGroups), otherwise a
// problem saying what to do. It returns the number of each.
func (e *env) reportMissing(io stdio, missing []string) (problems, notices int) {
	for _, g := range missing {
		if e.cfg.Policy.CreateUserGroups && !strings.HasPrefix(g, "_") {
			fmt.Fprintf(io.out, "notice: target group %q does not exist in the organization yet: sync creates it as a user group (policy.createUserGroups)\n", g)
			notices++
			continue
		}
		fmt.Fprintf(io.out, "problem: target group %q does not exist in the organization: %s\n", g, reconcile.MissingGroup{Name: g}.Hint())
		problems++
	}
	return problems, notices
}
