package view

import (
	"io"
	"strconv"
	"strings"
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
	return show(w, u, format, usersHeader, func(t *table) { t.row(userRow(*u)...) })
}

// Invites shows the pending invites (invites list).
func Invites(w io.Writer, invites []umwire.Invite, format string) error {
	return list(w, invites, format, "EMAIL\tLAST SENT\tINVITED BY", func(in umwire.Invite) []string {
		return []string{in.Email, time.UnixMilli(in.LastSentDTS).UTC().Format(time.RFC3339), in.InvitedBy.Email}
	})
}

// InviteDone shows what invites resend or revoke did to email's invite
// (done: "resent" or "revoked").
func InviteDone(w io.Writer, email, done, format string) error {
	v := struct {
		Email string `json:"email"`
		Done  string `json:"done"`
	}{email, done}
	return show(w, v, format, "", func(t *table) { t.row("invite of " + email + " " + done) })
}

// Products shows the organization's products (the deprecated listing).
func Products(w io.Writer, products []umwire.Product, format string) error {
	return list(w, products, format, "ID\tCODE\tNAME\tUSERS\tPROFILES\tQUOTA", func(p umwire.Product) []string {
		return []string{p.ID, p.Code, p.Name, strconv.Itoa(p.UserCount), strconv.Itoa(p.ConfigurationCount), strconv.Itoa(p.LicenseQuota)}
	})
}

// usersHeader heads the table of users.
const usersHeader = "EMAIL\tTYPE\tFIRST\tLAST\tCOUNTRY\tGROUPS"

// userRow is a user's row of the table.
func userRow(u umwire.User) []string {
	return []string{u.Email, u.Type, u.FirstName, u.LastName, u.Country, strings.Join(u.Groups, ", ")}
}

// list shows items as a table with one row an item, or as a JSON array.
func list[T any](w io.Writer, items []T, format, header string, row func(T) []string) error {
	if items == nil {
		items = []T{}
	}
	return show(w, items, format, header, func(t *table) {
		for _, it := range items {
			t.row(row(it)...)
		}
	})
}

// show writes v as indented JSON, or as a table: the header (when there
// is one), then the rows.
func show(w io.Writer, v any, format, header string, rows func(t *table)) error {
	if format == FormatJSON {
		return indentedJSON(w, v)
	}
	t := newTable(w, 2, header)
	rows(t)
	return t.flush()
}
