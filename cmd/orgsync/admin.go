package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/orgsync/orgsync/target/umapi"
	"github.com/orgsync/orgsync/target/umwire"
)

// adminCommand is the common part of users, invites and products: flags,
// configuration, client, and output as a table or JSON.
type adminCommand struct {
	fs     *flag.FlagSet
	setup  *setupFlags
	output *string
}

// newAdminCommand defines the flags every admin command has.
func newAdminCommand(name string) *adminCommand {
	fs := flag.NewFlagSet("orgsync "+name, flag.ContinueOnError)
	return &adminCommand{fs: fs, setup: addSetupFlags(fs), output: fs.String("output", "text", "output format: text or json")}
}

// start parses the flags (at most maxArgs arguments) and builds the client.
func (a *adminCommand) start(io stdio, args []string, maxArgs int) (*umapi.Client, int, bool) {
	e, code, ok := a.setup.start(a.fs, args, io, maxArgs, a.output)
	if !ok {
		return nil, code, false
	}
	c, err := e.client()
	if err != nil {
		return nil, a.fail(io, err), false
	}
	return c, exitOK, true
}

// print writes v as JSON, or as a table made by rows.
func (a *adminCommand) print(w io.Writer, v any, header string, rows func(tw *tabwriter.Writer)) error {
	if *a.output == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	rows(tw)
	return tw.Flush()
}

// fail prints err prefixed with the command's name and returns exitError.
func (a *adminCommand) fail(io stdio, err error) int { return fail(io, a.fs.Name(), err) }

// runUsers: `users list [--group G]` and `users get EMAIL [--domain D]`.
func runUsers(ctx context.Context, io stdio, args []string) int {
	if len(args) == 0 || (args[0] != "list" && args[0] != "get") {
		fmt.Fprintln(io.err, "usage: orgsync users list [--group NAME] | orgsync users get [--domain D] EMAIL")
		return exitError
	}
	a := newAdminCommand("users " + args[0])
	group := a.fs.String("group", "", "list: only the members of this user group, product profile or admin group")
	domain := a.fs.String("domain", "", "get: the user's domain (VendorID for independent IDs)")
	if args[0] == "get" {
		c, code, ok := a.start(io, args[1:], 1)
		if !ok {
			return code
		}
		if a.fs.NArg() != 1 {
			fmt.Fprintln(io.err, "orgsync users get: give the user's email")
			return exitError
		}
		u, err := c.GetUser(ctx, a.fs.Arg(0), *domain)
		if err != nil {
			return a.fail(io, err)
		}
		return a.printUsers(io, []umwire.User{*u})
	}
	c, code, ok := a.start(io, args[1:], 0)
	if !ok {
		return code
	}
	pages := c.OrgUsers(ctx, umapi.OrgUsersOptions{})
	if *group != "" {
		pages = c.GroupUsers(ctx, *group, umapi.GroupUsersOptions{})
	}
	var users []umwire.User
	for p, err := range pages {
		if err != nil {
			return a.fail(io, err)
		}
		users = append(users, p.Users...)
	}
	return a.printUsers(io, users)
}

// printUsers writes users as a table or JSON.
func (a *adminCommand) printUsers(io stdio, users []umwire.User) int {
	err := a.print(io.out, users, "EMAIL\tTYPE\tFIRST\tLAST\tCOUNTRY\tGROUPS", func(tw *tabwriter.Writer) {
		for _, u := range users {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", u.Email, u.Type, u.FirstName, u.LastName, u.Country, strings.Join(u.Groups, ", "))
		}
	})
	if err != nil {
		return a.fail(io, err)
	}
	return exitOK
}

// runInvites: `invites list`, `invites resend EMAIL`, `invites revoke EMAIL`.
func runInvites(ctx context.Context, io stdio, args []string) int {
	if len(args) == 0 || (args[0] != "list" && args[0] != "resend" && args[0] != "revoke") {
		fmt.Fprintln(io.err, "usage: orgsync invites list [--exclude-expired] | orgsync invites resend EMAIL | orgsync invites revoke EMAIL")
		return exitError
	}
	a := newAdminCommand("invites " + args[0])
	excludeExpired := a.fs.Bool("exclude-expired", false, "list: leave expired invites out")
	if args[0] == "list" {
		c, code, ok := a.start(io, args[1:], 0)
		if !ok {
			return code
		}
		var invites []umwire.Invite
		for batch, err := range c.Invites(ctx, umapi.InviteQuery{ExcludeExpired: *excludeExpired}) {
			if err != nil {
				return a.fail(io, err)
			}
			invites = append(invites, batch...)
		}
		err := a.print(io.out, invites, "EMAIL\tLAST SENT\tINVITED BY", func(tw *tabwriter.Writer) {
			for _, in := range invites {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", in.Email, time.UnixMilli(in.LastSentDTS).UTC().Format(time.RFC3339), in.InvitedBy.Email)
			}
		})
		if err != nil {
			return a.fail(io, err)
		}
		return exitOK
	}
	c, code, ok := a.start(io, args[1:], 1)
	if !ok {
		return code
	}
	if a.fs.NArg() != 1 {
		fmt.Fprintf(io.err, "%s: give the invited user's email\n", a.fs.Name())
		return exitError
	}
	email := a.fs.Arg(0)
	act, verb := c.ResendInvite, "resent"
	if args[0] == "revoke" {
		act, verb = c.RevokeInvite, "revoked"
	}
	if err := act(ctx, email); err != nil {
		return a.fail(io, err)
	}
	fmt.Fprintf(io.out, "invite of %s %s\n", email, verb)
	return exitOK
}

// runProducts lists the organization's products (deprecated endpoint).
func runProducts(ctx context.Context, io stdio, args []string) int {
	a := newAdminCommand("products")
	c, code, ok := a.start(io, args, 0)
	if !ok {
		return code
	}
	products, err := c.Products(ctx)
	if err != nil {
		return a.fail(io, err)
	}
	err = a.print(io.out, products, "ID\tCODE\tNAME\tUSERS\tPROFILES\tQUOTA", func(tw *tabwriter.Writer) {
		for _, p := range products {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\n", p.ID, p.Code, p.Name, p.UserCount, p.ConfigurationCount, p.LicenseQuota)
		}
	})
	if err != nil {
		return a.fail(io, err)
	}
	return exitOK
}
