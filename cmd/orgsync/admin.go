package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/orgsync/orgsync/internal/admin"
	"github.com/orgsync/orgsync/target/umwire"
)

// adminCommand is the common part of users, invites and products: flags,
// configuration, organization, and output as a table or JSON.
type adminCommand struct {
	fs     *flag.FlagSet
	setup  *setupFlags
	output *string
	org    *string
}

// newAdminCommand defines the flags every admin command has.
func newAdminCommand(name string) *adminCommand {
	fs := flag.NewFlagSet("orgsync "+name, flag.ContinueOnError)
	return &adminCommand{fs: fs, setup: addSetupFlags(fs), output: fs.String("output", "text", "output format: text or json"),
		org: fs.String("org", "", "the organization (a name of targets:); default the primary")}
}

// start parses the flags (at most maxArgs arguments) and opens the
// organization.
func (a *adminCommand) start(std stdio, args []string, maxArgs int) (*admin.Org, int, bool) {
	e, code, ok := a.setup.start(a.fs, args, std, maxArgs, a.output)
	if !ok {
		return nil, code, false
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

// print writes v as JSON, or as a table made by rows, and returns the exit
// code; err, when set, is printed instead.
func (a *adminCommand) print(std stdio, v any, err error, header string, rows func(tw *tabwriter.Writer)) int {
	if err == nil && *a.output == "json" {
		enc := json.NewEncoder(std.out)
		enc.SetIndent("", "  ")
		err = enc.Encode(v)
	} else if err == nil {
		tw := tabwriter.NewWriter(std.out, 2, 4, 2, ' ', 0)
		if header != "" {
			fmt.Fprintln(tw, header)
		}
		rows(tw)
		err = tw.Flush()
	}
	if err != nil {
		return fail(std, a.fs.Name(), err)
	}
	return exitOK
}

// printList is print for a list: a table with one row per item, or a JSON
// array (`[]` when there is none, never `null`).
func printList[T any](a *adminCommand, std stdio, items []T, err error, header string, row func(T) string) int {
	if items == nil {
		items = []T{}
	}
	return a.print(std, items, err, header, func(tw *tabwriter.Writer) {
		for _, it := range items {
			fmt.Fprintln(tw, row(it))
		}
	})
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
		return a.print(std, u, err, usersHeader, func(tw *tabwriter.Writer) { fmt.Fprintln(tw, userRow(*u)) }) // one user: an object, not a list
	}
	o, code, ok := a.start(std, args[1:], 0)
	if !ok {
		return code
	}
	users, err := o.Users(ctx, *group)
	return printList(a, std, users, err, usersHeader, userRow)
}

// usersHeader heads the table of users.
const usersHeader = "EMAIL\tTYPE\tFIRST\tLAST\tCOUNTRY\tGROUPS"

// userRow is a user's row of the table.
func userRow(u umwire.User) string {
	return strings.Join([]string{u.Email, u.Type, u.FirstName, u.LastName, u.Country, strings.Join(u.Groups, ", ")}, "\t")
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
		return printList(a, std, invites, err, "EMAIL\tLAST SENT\tINVITED BY", func(in umwire.Invite) string {
			return in.Email + "\t" + time.UnixMilli(in.LastSentDTS).UTC().Format(time.RFC3339) + "\t" + in.InvitedBy.Email
		})
	}
	o, email, code, ok := a.startOne(std, args[1:], "the invited user's email")
	if !ok {
		return code
	}
	verb, err := o.Invite(ctx, args[0], email)
	done := inviteDone{Email: email, Done: verb}
	return a.print(std, done, err, "", func(tw *tabwriter.Writer) { fmt.Fprintf(tw, "invite of %s %s\n", email, verb) })
}

// inviteDone is what `invites resend` and `invites revoke --output json` print.
type inviteDone struct {
	Email string `json:"email"`
	Done  string `json:"done"` // "resent" or "revoked"
}

// runProducts lists the organization's products (deprecated endpoint).
func runProducts(ctx context.Context, std stdio, args []string) int {
	a := newAdminCommand("products")
	o, code, ok := a.start(std, args, 0)
	if !ok {
		return code
	}
	products, err := o.Products(ctx)
	return printList(a, std, products, err, "ID\tCODE\tNAME\tUSERS\tPROFILES\tQUOTA", func(p umwire.Product) string {
		return fmt.Sprintf("%s\t%s\t%s\t%d\t%d\t%d", p.ID, p.Code, p.Name, p.UserCount, p.ConfigurationCount, p.LicenseQuota)
	})
}
