package view

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/orgsync/orgsync/target/umwire"
)

// The formats of what the commands show (--output): text, or JSON.
const (
	FormatText = "text"
	FormatJSON = "json"
)

// Users shows the organization's users (users list): a table with one row
// a user, or a JSON array (`[]` when there is none, never `null`).
func Users(w io.Writer, users []umwire.User, format string) error {
	return list(w, users, format, usersHeader, userRow)
}

// User shows one user (users get): its row, or a JSON object.
func User(w io.Writer, u *umwire.User, format string) error {
	return show(w, u, format, usersHeader, func(tw io.Writer) { fmt.Fprintln(tw, userRow(*u)) })
}

// Invites shows the pending invites (invites list).
func Invites(w io.Writer, invites []umwire.Invite, format string) error {
	return list(w, invites, format, "EMAIL\tLAST SENT\tINVITED BY", func(in umwire.Invite) string {
		return in.Email + "\t" + time.UnixMilli(in.LastSentDTS).UTC().Format(time.RFC3339) + "\t" + in.InvitedBy.Email
	})
}

// InviteDone shows what invites resend or revoke did to email's invite
// (done: "resent" or "revoked").
func InviteDone(w io.Writer, email, done, format string) error {
	v := struct {
		Email string `json:"email"`
		Done  string `json:"done"`
	}{email, done}
	return show(w, v, format, "", func(tw io.Writer) { fmt.Fprintf(tw, "invite of %s %s\n", email, done) })
}

// Products shows the organization's products (the deprecated listing).
func Products(w io.Writer, products []umwire.Product, format string) error {
	return list(w, products, format, "ID\tCODE\tNAME\tUSERS\tPROFILES\tQUOTA", func(p umwire.Product) string {
		return fmt.Sprintf("%s\t%s\t%s\t%d\t%d\t%d", p.ID, p.Code, p.Name, p.UserCount, p.ConfigurationCount, p.LicenseQuota)
	})
}

// usersHeader heads the table of users.
const usersHeader = "EMAIL\tTYPE\tFIRST\tLAST\tCOUNTRY\tGROUPS"

// userRow is a user's row of the table.
func userRow(u umwire.User) string {
	return strings.Join([]string{u.Email, u.Type, u.FirstName, u.LastName, u.Country, strings.Join(u.Groups, ", ")}, "\t")
}

// list shows items as a table with one row an item, or as a JSON array.
func list[T any](w io.Writer, items []T, format, header string, row func(T) string) error {
	if items == nil {
		items = []T{}
	}
	return show(w, items, format, header, func(tw io.Writer) {
		for _, it := range items {
			fmt.Fprintln(tw, row(it))
		}
	})
}

// show writes v as indented JSON, or as a table: the header (when there
// is one), then the rows.
func show(w io.Writer, v any, format, header string, rows func(tw io.Writer)) error {
	if format == FormatJSON {
		return indentedJSON(w, v)
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	if header != "" {
		fmt.Fprintln(tw, header)
	}
	rows(tw)
	return tw.Flush()
}
