package main

import (
	"context"
	"fmt"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/reconcile"
)

// runValidate checks the configuration and reads the sources, reporting
// every problem; with --check-target it also signs in to each organization,
// reads one page of users and checks that the target groups the sources'
// users are mapped to exist.
func runValidate(ctx context.Context, io stdio, args []string) int {
	c := newRunCommand("validate", false)
	fs := c.fs
	checkTarget := fs.Bool("check-target", false, "also sign in to the service, read one page of users and check that the target groups exist")
	e, j, code, ok := c.start(io, args, false)
	if !ok {
		return code
	}
	problems := 0
	problem := func(err error) { // each problem once, on standard output
		fmt.Fprintf(io.out, "problem: %v\n", err)
		problems++
	}
	for _, err := range e.cfg.Preflight() {
		problem(err)
	}
	d, err := j.ReadSources(ctx)
	if err != nil { // every source that failed, one problem each
		for _, err := range unjoin(err) {
			problem(err)
		}
		d = &run.Sources{}
	}
	if f := e.cfg.Scope.UsersFile; f != "" {
		uf, err := config.ReadUsersFile(f) // readable: Load checked it
		if err != nil {
			return fail(io, fs.Name(), fmt.Errorf("scope.usersFile: %w", err))
		}
		d.Problems = append(d.Problems, uf.Problems...)
	}
	for _, p := range d.Problems {
		fmt.Fprintf(io.out, "problem: %s\n", p)
	}
	problems += len(d.Problems)
	notices := len(d.Notices)
	for _, n := range d.Notices {
		fmt.Fprintf(io.out, "notice: %s\n", n)
	}
	parts := j.Split(d)
	if e.cfg.MultiOrg() {
		for _, t := range j.Orgs() {
			fmt.Fprintf(io.out, "organization %s (%s): %d desired user(s)\n", t.Name, t.OrgID, len(parts[t.Name].Users))
		}
	}
	if *checkTarget {
		for _, t := range j.Orgs() {
			missing, err := j.MissingGroups(ctx, t, parts[t.Name].Users)
			if err != nil { // the other organizations are checked all the same
				fmt.Fprintf(io.out, "problem: %s: %v\n", t.Path(), err)
				problems++
				continue
			}
			fmt.Fprintf(io.out, "%s: signed in and read the first page of users\n", t.Path())
			p, n := reportMissing(io, e.cfg, t, missing)
			problems, notices = problems+p, notices+n
		}
	}
	leftOut := ""
	if len(d.Filtered) > 0 {
		leftOut = fmt.Sprintf(" (%d more left out by a filter or the scope)", len(d.Filtered))
	}
	verdict := "configuration valid"
	if problems > 0 {
		verdict = plural(problems, "problem", "problems") + " to fix"
	}
	fmt.Fprintf(io.out, "%s: %s; %s%s from %s; %s\n", e.cfg.File, verdict, plural(len(d.Users), "desired user", "desired users"), leftOut,
		plural(len(e.cfg.Sources), "source", "sources"), plural(notices, "notice", "notices"))
	if problems > 0 {
		return exitError
	}
	return exitOK
}

// unjoin returns the errors errors.Join joined, or err alone.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// plural says n things: "1 entry", "3 entries".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// reportMissing prints a line for each target group missing in
// organization t: a notice for one that sync creates, otherwise a problem
// saying what to do. It returns the number of each.
func reportMissing(io stdio, cfg *config.Config, t *config.NamedTarget, missing []run.MissingGroup) (problems, notices int) {
	where := "the organization"
	if cfg.MultiOrg() {
		where = "organization " + t.Name
	}
	for _, g := range missing {
		if g.Created {
			fmt.Fprintf(io.out, "notice: target group %q does not exist in %s yet: sync creates it as a user group (policy.createUserGroups)\n", g.Name, where)
			notices++
			continue
		}
		fmt.Fprintf(io.out, "problem: target group %q does not exist in %s: %s\n", g.Name, where, reconcile.MissingGroup{Name: g.Name}.Hint())
		problems++
	}
	return problems, notices
}
