package view

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/store"
)

// History writes the history's entries as aligned text, one a line: when,
// the organization, the user, the kind, the steps, the result (with the
// service's code of a failure) and why (with the approval that held it
// and who approved it); or as JSON (FormatJSON), one object a line.
func History(w io.Writer, entries []store.Entry, format string) error {
	if format == FormatJSON {
		return historyJSON(w, entries)
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

// historyJSON writes the history's entries as JSON, one object a line.
func historyJSON(w io.Writer, entries []store.Entry) error {
	enc := json.NewEncoder(w)
	for i := range entries {
		if err := enc.Encode(&entries[i]); err != nil {
			return err
		}
	}
	return nil
}
