package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source/mapping"
	"github.com/orgsync/orgsync/target/umtarget"
)

// runValidate checks the configuration and reads the sources, reporting
// every problem; with --check-target it also signs in to each organization,
// reads one page of users and checks that the target groups the sources'
// users are mapped to exist.
func runValidate(ctx context.Context, io stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync validate", flag.ContinueOnError)
	sf := addSetupFlags(fs)
	sf.addOrgsFlag(fs)
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
	if f := e.cfg.Scope.UsersFile; f != "" {
		uf, err := config.ReadUsersFile(f) // readable: Load checked it
		if err != nil {
			return fail(io, fs.Name(), fmt.Errorf("scope.usersFile: %w", err))
		}
		d.problems = append(d.problems, uf.Problems...)
	}
	for _, p := range d.problems {
		fmt.Fprintf(io.out, "problem: %s\n", p)
	}
	problems, notices := len(d.problems), len(d.notices)
	for _, n := range d.notices {
		fmt.Fprintf(io.out, "notice: %s\n", n)
	}
	parts := e.split(d)
	if e.cfg.MultiOrg() {
		for _, t := range e.selected {
			fmt.Fprintf(io.out, "organization %s (%s): %d desired user(s)\n", t.Name, t.OrgID, len(parts[t.Name].Users))
		}
	}
	if *checkTarget {
		for _, t := range e.selected {
			missing, err := e.checkTarget(ctx, t, m, parts[t.Name].Users)
			if err != nil { // the other organizations are checked all the same
				fmt.Fprintf(io.out, "problem: %s: %v\n", t.Path(), err)
				problems++
				continue
			}
			fmt.Fprintf(io.out, "%s: signed in and read the first page of users\n", t.Path())
			p, n := e.reportMissing(io, t, missing)
			problems, notices = problems+p, notices+n
		}
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

// checkTarget signs in to organization t, reads its first page and
// returns the target groups of its users that do not exist in it.
func (e *env) checkTarget(ctx context.Context, t *config.NamedTarget, m *mapping.Mapper, users []reconcile.User) ([]string, error) {
	policy, err := e.cfg.TargetPolicy(t, m)
	if err != nil {
		return nil, err
	}
	policy.ManageGroupsOf(users)
	c, err := e.client(t)
	if err != nil {
		return nil, err
	}
	missing, err := umtarget.New(c, umtarget.Options{}).MissingGroups(ctx, policy.ReadNeedsFor(users).CheckGroups)
	return missing, withSettingHint(err, t)
}

// reportMissing prints a line for each target group missing in
// organization t: a notice for one that sync creates
// (policy.createUserGroups), otherwise a problem saying what to do. It
// returns the number of each.
func (e *env) reportMissing(io stdio, t *config.NamedTarget, missing []string) (problems, notices int) {
	where := "the organization"
	if e.cfg.MultiOrg() {
		where = "organization " + t.Name
	}
	for _, g := range missing {
		if e.cfg.PolicyOf(t).CreateUserGroups && !strings.HasPrefix(g, "_") {
			fmt.Fprintf(io.out, "notice: target group %q does not exist in %s yet: sync creates it as a user group (policy.createUserGroups)\n", g, where)
			notices++
			continue
		}
		fmt.Fprintf(io.out, "problem: target group %q does not exist in %s: %s\n", g, where, reconcile.MissingGroup{Name: g}.Hint())
		problems++
	}
	return problems, notices
}
