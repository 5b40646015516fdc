package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/target/umapi"
	"github.com/orgsync/orgsync/target/umwire"
)

// adminCommand is the common part of users, invites and products: flags,
// configuration, client, and output as a table or JSON.
type adminCommand struct {
	fs     *flag.FlagSet
	setup  *setupFlags
	output *string
	org    *string
	target *config.NamedTarget // the organization, once started
}

// newAdminCommand defines the flags every admin command has.
func newAdminCommand(name string) *adminCommand {
	fs := flag.NewFlagSet("orgsync "+name, flag.ContinueOnError)
	return &adminCommand{fs: fs, setup: addSetupFlags(fs), output: fs.String("output", "text", "output format: text or json"),
		org: fs.String("org", "", "the organization (a name of targets:); default the primary")}
}

// start parses the flags (at most maxArgs arguments) and builds the client.
func (a *adminCommand) start(io stdio, args []string, maxArgs int) (*umapi.Client, int, bool) {
	e, code, ok := a.setup.start(a.fs, args, io, maxArgs, a.output)
	if !ok {
		return nil, code, false
	}
	t, err := run.Target(e.cfg, "--org", *a.org)
	if err != nil {
		return nil, a.fail(io, err), false
	}
	a.target = t
	j, err := e.job(run.Overrides{}, false)
	if err != nil {
		return nil, a.fail(io, err), false
	}
	c, err := j.Client(t)
	if err != nil {
		return nil, a.fail(io, err), false
	}
	return c, exitOK, true
}

// startOne is start for a command that takes exactly one argument, an
// email; what names it in the message when it is missing.
func (a *adminCommand) startOne(io stdio, args []string, what string) (*umapi.Client, string, int, bool) {
	c, code, ok := a.start(io, args, 1)
	if !ok {
		return nil, "", code, false
	}
	if a.fs.NArg() != 1 {
		fmt.Fprintf(io.err, "%s: give %s\n", a.fs.Name(), what)
		return nil, "", exitError, false
	}
	return c, a.fs.Arg(0), exitOK, true
}

// print writes v as JSON, or as a table made by rows, and returns the exit
// code.
func (a *adminCommand) print(io stdio, v any, header string, rows func(tw *tabwriter.Writer)) int {
	var err error
	if *a.output == "json" {
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		err = enc.Encode(v)
	} else {
		tw := tabwriter.NewWriter(io.out, 2, 4, 2, ' ', 0)
		if header != "" {
			fmt.Fprintln(tw, header)
		}
		rows(tw)
		err = tw.Flush()
	}
	if err != nil {
		return a.fail(io, err)
	}
	return exitOK
}

// printList is print for a list: a table with one row per item, or a JSON
// array (`[]` when there is none, never `null`).
func printList[T any](a *adminCommand, io stdio, items []T, header string, row func(T) string) int {
	if items == nil {
		items = []T{}
	}
	return a.print(io, items, header, func(tw *tabwriter.Writer) {
		for _, it := range items {
			fmt.Fprintln(tw, row(it))
		}
	})
}

// fail prints err prefixed with the command's name (and, for a refused
// sign-in, the settings to check) and returns exitError.
func (a *adminCommand) fail(io stdio, err error) int {
	if a.target != nil {
		err = run.WithSettingHint(err, a.target)
	}
	return fail(io, a.fs.Name(), err)
}

// runUsers: `users list [--group G]` and `users get EMAIL [--domain D]`.
func runUsers(ctx context.Context, io stdio, args []string) int {
	if ok, code := subcommand(io, args, "usage: orgsync users list [--group NAME] | orgsync users get EMAIL [--domain D]", "list", "get"); !ok {
		return code
	}
	a := newAdminCommand("users " + args[0])
	group := a.fs.String("group", "", "list: only the members of this user group, product profile or admin group")
	domain := a.fs.String("domain", "", "get: the user's domain (VendorID for independent IDs)")
	if args[0] == "get" {
		c, email, code, ok := a.startOne(io, args[1:], "the user's email")
		if !ok {
			return code
		}
		u, err := c.GetUser(ctx, email, *domain)
		if umapi.IsNotFound(err) {
			err = fmt.Errorf("no user %s in the organization %s (a Federated ID known by a username: give the username and --domain)", email, a.target.OrgID)
		}
		if err != nil {
			return a.fail(io, err)
		}
		return a.print(io, u, usersHeader, func(tw *tabwriter.Writer) { fmt.Fprintln(tw, userRow(*u)) }) // one user: an object, not a list
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
		if *group != "" && umapi.IsNotFound(err) {
			err = fmt.Errorf("no group %q in the organization %s: give a user group, product profile or admin group as the organization names it (orgsync users list shows each user's groups)", *group, a.target.OrgID)
		}
		if err != nil {
			return a.fail(io, err)
		}
		users = append(users, p.Users...)
	}
	return a.printUsers(io, users)
}

// usersHeader heads the table of users.
const usersHeader = "EMAIL\tTYPE\tFIRST\tLAST\tCOUNTRY\tGROUPS"

// printUsers writes users as a table or JSON.
func (a *adminCommand) printUsers(io stdio, users []umwire.User) int {
	return printList(a, io, users, usersHeader, userRow)
}

// userRow is a user's row of the table.
func userRow(u umwire.User) string {
	return strings.Join([]string{u.Email, u.Type, u.FirstName, u.LastName, u.Country, strings.Join(u.Groups, ", ")}, "\t")
}

// runInvites: `invites list`, `invites resend EMAIL`, `invites revoke EMAIL`.
func runInvites(ctx context.Context, io stdio, args []string) int {
	if ok, code := subcommand(io, args, "usage: orgsync invites list [--exclude-expired] | orgsync invites resend EMAIL | orgsync invites revoke EMAIL", "list", "resend", "revoke"); !ok {
		return code
	}
	a := newAdminCommand("invites " + args[0])
	excludeExpired := a.fs.Bool("exclude-expired", false, "list: leave expired invites out")
	if args[0] == "list" {
		return a.listInvites(ctx, io, args[1:], excludeExpired)
	}
	c, email, code, ok := a.startOne(io, args[1:], "the invited user's email")
	if !ok {
		return code
	}
	act, verb := c.ResendInvite, "resent"
	if args[0] == "revoke" {
		act, verb = c.RevokeInvite, "revoked"
	}
	if err := act(ctx, email); err != nil {
		if umapi.IsNotFound(err) {
			err = fmt.Errorf("%w; an expired invite is not pending and a service may refuse to %s it: `orgsync sync` invites a user of a source again", err, args[0])
		}
		return a.fail(io, err)
	}
	done := inviteDone{Email: email, Done: verb}
	return a.print(io, done, "", func(tw *tabwriter.Writer) { fmt.Fprintf(tw, "invite of %s %s\n", email, verb) })
}

// inviteDone is what `invites resend` and `invites revoke --output json` print.
type inviteDone struct {
	Email string `json:"email"`
	Done  string `json:"done"` // "resent" or "revoked"
}

// listInvites is `invites list`; excludeExpired is its flag, read once the
// flags are parsed.
func (a *adminCommand) listInvites(ctx context.Context, io stdio, args []string, excludeExpired *bool) int {
	c, code, ok := a.start(io, args, 0)
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
	return printList(a, io, invites, "EMAIL\tLAST SENT\tINVITED BY", func(in umwire.Invite) string {
		return in.Email + "\t" + time.UnixMilli(in.LastSentDTS).UTC().Format(time.RFC3339) + "\t" + in.InvitedBy.Email
	})
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
	return printList(a, io, products, "ID\tCODE\tNAME\tUSERS\tPROFILES\tQUOTA", func(p umwire.Product) string {
		return fmt.Sprintf("%s\t%s\t%s\t%d\t%d\t%d", p.ID, p.Code, p.Name, p.UserCount, p.ConfigurationCount, p.LicenseQuota)
	})
}
