// Package oneline writes the reconciler's values as the one-line texts
// every output shows them in: a planned change (the plan, a saved plan's
// review, a notification, the status page, the report), a request's entry,
// what Apply sends as it goes, and the safety gate's notes on the
// approvals it respected. The views (internal/view) and the packages
// below them (the run, change control) share it; it imports nothing of
// ours but reconcile and the utilities.
package oneline

import (
	"fmt"
	"io"
	"strings"

	"github.com/orgsync/orgsync/reconcile"
)

// Change is one change on one line, e.g.
// `+ create jane@example.com (enterpriseID) firstname="Jane" lastname="Doe" country="US" groups: +Design +Dev`:
// the sign and the kind as the table of kinds gives them, what it is
// about, and what it sets, adds and removes.
func Change(c *reconcile.Change) string {
	var b strings.Builder
	in := c.Kind.Info()
	fmt.Fprintf(&b, "%s %s %s", in.Sign, c.Kind, c.Key())
	if in.OfGroup {
		return b.String()
	}
	if c.User.Type != "" {
		fmt.Fprintf(&b, " (%s)", c.User.Type)
	}
	if in.ShowsUser {
		fmt.Fprintf(&b, " firstname=%q lastname=%q country=%q", c.User.FirstName, c.User.LastName, c.User.Country)
	}
	if in.DeleteAccount {
		b.WriteString(" deleteAccount")
	}
	if c.Set != nil {
		for _, f := range []struct {
			name string
			v    *string
		}{{"firstname", c.Set.FirstName}, {"lastname", c.Set.LastName}, {"email", c.Set.Email}, {"username", c.Set.Username}} {
			if f.v != nil {
				fmt.Fprintf(&b, " %s=%q", f.name, *f.v)
			}
		}
	}
	if len(c.Add)+len(c.Remove) > 0 {
		b.WriteString(" groups:")
		for _, g := range c.Add {
			b.WriteString(" +" + g)
		}
		for _, g := range c.Remove {
			b.WriteString(" -" + g)
		}
	}
	return b.String()
}

// Entry is one entry of a request on one line, e.g.
// `user jane@example.com: create; add [Design Dev]`.
func Entry(e *reconcile.Entry) string {
	var b strings.Builder
	if e.User != nil {
		fmt.Fprintf(&b, "user %s:", e.User.Key())
	} else {
		fmt.Fprintf(&b, "usergroup %s:", e.Group)
	}
	for i, s := range e.Steps {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, " %s", s.Kind)
		switch {
		case len(s.Groups) > 0:
			fmt.Fprintf(&b, " %v", s.Groups)
		case len(s.Users) > 0:
			keys := make([]string, len(s.Users))
			for j := range s.Users {
				keys[j] = s.Users[j].Key()
			}
			fmt.Fprintf(&b, " %v", keys)
		case s.DeleteAccount:
			b.WriteString(" deleteAccount")
		}
	}
	return b.String()
}

// Events returns what writes each event of Apply to w (ApplyOptions.Events):
// a request as "sending request 2/3 (10 entries)", or in a dry run as
// "would send request 2/3 (10 entries)" followed by its entries, one a
// line; an invite revoke as "revoke-invite a@example.com", or when it is
// not sent as "would revoke-invite a@example.com (invite endpoints have
// no test mode)".
func Events(w io.Writer) func(reconcile.Event) {
	return func(ev reconcile.Event) {
		if ev.Revoke != nil {
			if ev.Sent {
				fmt.Fprintf(w, "%s %s\n", ev.Revoke.Kind, ev.Revoke.User.Email)
			} else {
				fmt.Fprintf(w, "would %s %s (invite endpoints have no test mode)\n", ev.Revoke.Kind, ev.Revoke.User.Email)
			}
			return
		}
		verb := "sending"
		if !ev.Sent {
			verb = "would send"
		}
		entries := "entries"
		if len(ev.Entries) == 1 {
			entries = "entry"
		}
		fmt.Fprintf(w, "%s request %d/%d (%d %s)\n", verb, ev.Request, ev.Requests, len(ev.Entries), entries)
		if ev.Sent {
			return
		}
		for i := range ev.Entries {
			fmt.Fprintf(w, "  %s\n", Entry(&ev.Entries[i]))
		}
	}
}
