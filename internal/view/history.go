package view

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/store"
)

// History writes the history's entries as aligned text, one a line: when,
// the organization, the user, the kind, the steps, the result (with the
// service's code of a failure) and why (with the approval that held it
// and who approved it); or as JSON (FormatJSON), one object a line as
// history.jsonl holds it.
func History(w io.Writer, entries []store.Entry, format string) error {
	if format == FormatJSON {
		return store.WriteEntries(w, entries)
	}
	if len(entries) == 0 {
		_, err := fmt.Fprintln(w, "no changes recorded (for this filter)")
		return err
	}
	t := newTable(w, 0, "TIME\tORG\tUSER\tKIND\tSTEPS\tRESULT\tWHY")
	for _, e := range entries {
		result := e.Result
		if e.Code != "" {
			result += " " + e.Code
		}
		why := e.Reason
		if e.Approval != "" {
			why += " (approval " + e.Approval
			if e.DecidedBy != "" {
				why += ", approved by " + e.DecidedBy
			}
			why += ")"
		}
		t.row(e.Time.Local().Format(time.DateTime), e.Org, e.User, e.Kind, strings.Join(e.Steps, "; "), result, why)
	}
	return t.flush()
}
