package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/orgsync/orgsync/internal/admin"
	"github.com/orgsync/orgsync/internal/view"
	"github.com/orgsync/orgsync/reconcile"
)

// adminCommand is the common part of users, invites and products: flags,
// configuration, organization, and output as a table or JSON.
type adminCommand struct {
	fs     *flag.FlagSet
	setup  *setupFlags
	output *string
	org    *string
	env    *env // once set up
}

// newAdminCommand defines the flags every admin command has.
func newAdminCommand(name string) *adminCommand {
	fs := flag.NewFlagSet("orgsync "+name, flag.ContinueOnError)
	return &adminCommand{fs: fs, setup: addSetupFlags(fs), output: fs.String("output", view.FormatText, "output format: text or json"),
		org: fs.String("org", "", "the organization (a name of targets:); default the primary")}
}

// start parses the flags (at most maxArgs arguments) and opens the
// organization.
func (a *adminCommand) start(std stdio, args []string, maxArgs int) (*admin.Org, int, bool) {
	e, code, ok := a.setup.start(a.fs, args, std, maxArgs, a.output)
	if !ok {
		return nil, code, false
	}
	a.env = e
	if *a.org != "" {
		e.orgs = []string{*a.org}
	} else {
		e.orgs = []string{e.cfg.Primary().Name}
	}
	o, err := admin.Open(e.cfg, e.log, "--org", *a.org)
	if err != nil {
		return nil, fail(std, a.fs.Name(), err), false
	}
	return o, exitOK, true
}

// startOne is start for a command that takes exactly one argument, an
// email; what names it in the message when it is missing.
func (a *adminCommand) startOne(std stdio, args []string, what string) (*admin.Org, string, int, bool) {
	o, code, ok := a.start(std, args, 1)
	if !ok {
		return nil, "", code, false
	}
	if a.fs.NArg() != 1 {
		fmt.Fprintf(std.err, "%s: give %s\n", a.fs.Name(), what)
		return nil, "", exitError, false
	}
	return o, a.fs.Arg(0), exitOK, true
}

// print ends the command with what show wrote, or err (the call's or the
// writing's).
func (a *adminCommand) print(std stdio, err error, show func(w io.Writer, format string) error) int {
	if err == nil {
		err = show(std.out, *a.output)
	}
	if err != nil {
		return fail(std, a.fs.Name(), err)
	}
	return exitOK
}

// runUsers: `users list [--group G]` and `users get EMAIL [--domain D]`.
func runUsers(ctx context.Context, std stdio, args []string) int {
	if code, ok := subcommand(std, args, "usage: orgsync users list [--group NAME] | orgsync users get EMAIL [--domain D]", "list", "get"); !ok {
		return code
	}
	a := newAdminCommand("users " + args[0])
	group := a.fs.String("group", "", "list: only the members of this user group, product profile or admin group")
	domain := a.fs.String("domain", "", "get: the user's domain (VendorID for independent IDs)")
	if args[0] == "get" {
		o, email, code, ok := a.startOne(std, args[1:], "the user's email")
		if !ok {
			return code
		}
		u, err := o.User(ctx, email, *domain)
		return a.print(std, err, func(w io.Writer, format string) error { return view.User(w, u, format) }) // one user: an object, not a list
	}
	o, code, ok := a.start(std, args[1:], 0)
	if !ok {
		return code
	}
	users, err := o.Users(ctx, *group)
	return a.print(std, err, func(w io.Writer, format string) error { return view.Users(w, users, format) })
}

// runInvites: `invites list`, `invites resend EMAIL`, `invites revoke EMAIL`.
func runInvites(ctx context.Context, std stdio, args []string) int {
	if code, ok := subcommand(std, args, "usage: orgsync invites list [--exclude-expired] | orgsync invites resend EMAIL | orgsync invites revoke EMAIL", "list", "resend", "revoke"); !ok {
		return code
	}
	a := newAdminCommand("invites " + args[0])
	excludeExpired := a.fs.Bool("exclude-expired", false, "list: leave expired invites out")
	if args[0] == "list" {
		o, code, ok := a.start(std, args[1:], 0)
		if !ok {
			return code
		}
		invites, err := o.Invites(ctx, *excludeExpired)
		return a.print(std, err, func(w io.Writer, format string) error { return view.Invites(w, invites, format) })
	}
	a.setup.addReportFlag(a.fs)
	o, email, code, ok := a.startOne(std, args[1:], "the invited user's email")
	if !ok {
		return code
	}
	start := time.Now()
	done, err := o.Invite(ctx, args[0], email)
	a.env.control.Invited(o.Target(), inviteKinds[args[0]], email, start, err)
	if err == nil {
		err = view.InviteDone(std.out, email, done, *a.output)
	}
	return a.env.end(std, a.fs.Name(), err)
}

// inviteKinds are the changes invites resend and revoke make.
var inviteKinds = map[string]reconcile.Kind{"resend": reconcile.KindResendInvite, "revoke": reconcile.KindRevokeInvite}

// runProducts lists the organization's products (deprecated endpoint).
func runProducts(ctx context.Context, std stdio, args []string) int {
	a := newAdminCommand("products")
	o, code, ok := a.start(std, args, 0)
	if !ok {
		return code
	}
	products, err := o.Products(ctx)
	return a.print(std, err, func(w io.Writer, format string) error { return view.Products(w, products, format) })
}
