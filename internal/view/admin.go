package view

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/orgsync/orgsync/target/umwire"
)

// What the admin commands (users, invites, products) show of an
// organization: a table with its columns aligned, or JSON (format
// "json"), the service's own objects.

// usersHeader heads the table of users.
const usersHeader = "EMAIL\tTYPE\tFIRST\tLAST\tCOUNTRY\tGROUPS"

// Users writes the users, a row each, or as a JSON array.
func Users(w io.Writer, users []umwire.User, format string) error {
	return list(w, format, users, usersHeader, userRow)
}

// User writes one user as a row, or as a JSON object (not a list).
func User(w io.Writer, u *umwire.User, format string) error {
	return table(w, format, u, usersHeader, func(tw io.Writer) { fmt.Fprintln(tw, userRow(*u)) })
}

// userRow is a user's row of the table.
func userRow(u umwire.User) string {
	return strings.Join([]string{u.Email, u.Type, u.FirstName, u.LastName, u.Country, strings.Join(u.Groups, ", ")}, "\t")
}

// Invites writes the pending invites, a row each (when last sent, in UTC),
// or as a JSON array.
func Invites(w io.Writer, invites []umwire.Invite, format string) error {
	return list(w, format, invites, "EMAIL\tLAST SENT\tINVITED BY", func(in umwire.Invite) string {
		return in.Email + "\t" + time.UnixMilli(in.LastSentDTS).UTC().Format(time.RFC3339) + "\t" + in.InvitedBy.Email
	})
}

// InviteAction is what was done to the invite of a user.
type InviteAction struct {
	Email string `json:"email"`
	Done  string `json:"done"` // "resent" or "revoked"
}

// InviteDone writes what was done to an invite, as a line or as a JSON
// object.
func InviteDone(w io.Writer, a InviteAction, format string) error {
	return table(w, format, a, "", func(tw io.Writer) { fmt.Fprintf(tw, "invite of %s %s\n", a.Email, a.Done) })
}

// Products writes the organization's products, a row each, or as a JSON
// array.
func Products(w io.Writer, products []umwire.Product, format string) error {
	return list(w, format, products, "ID\tCODE\tNAME\tUSERS\tPROFILES\tQUOTA", func(p umwire.Product) string {
		return fmt.Sprintf("%s\t%s\t%s\t%d\t%d\t%d", p.ID, p.Code, p.Name, p.UserCount, p.ConfigurationCount, p.LicenseQuota)
	})
}

// list writes items as a table, a row each, or as a JSON array (`[]` when
// there is none, never `null`).
func list[T any](w io.Writer, format string, items []T, header string, row func(T) string) error {
	if items == nil {
		items = []T{}
	}
	return table(w, format, items, header, func(tw io.Writer) {
		for _, it := range items {
			fmt.Fprintln(tw, row(it))
		}
	})
}

// table writes v as indented JSON (format "json"), else a table: header,
// when set, then what rows writes, its columns aligned.
func table(w io.Writer, format string, v any, header string, rows func(tw io.Writer)) error {
	if format == "json" {
		return indentedJSON(w, v)
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	if header != "" {
		fmt.Fprintln(tw, header)
	}
	rows(tw)
	return tw.Flush()
}
