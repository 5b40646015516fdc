package view

import (
	"io"
	"text/tabwriter"

	"github.com/orgsync/orgsync/internal/util/oneline"
	"github.com/orgsync/orgsync/internal/util/termsafe"
	"github.com/orgsync/orgsync/reconcile"
)

// What the views show comes from directories and servers, so each value
// is escaped for the terminal before the layout is made (termsafe), not
// only when the command's output is written: a tab or a newline in a
// value would add a column to a table or forge a line of a plan, and an
// escape counted after alignment would break the table's columns.

// table writes rows of cells aligned in columns under a header; each
// cell is shown as data (termsafe.Cell: its tabs and newlines escaped).
type table struct{ tw *tabwriter.Writer }

// newTable returns a table writing to w (the header is written when it
// is not empty).
func newTable(w io.Writer, minWidth int, header string) *table {
	t := &table{tabwriter.NewWriter(w, minWidth, 4, 2, ' ', 0)}
	if header != "" {
		_, _ = io.WriteString(t.tw, header+"\n")
	}
	return t
}

// row writes one row.
func (t *table) row(cells ...string) {
	for i, c := range cells {
		if i > 0 {
			_, _ = io.WriteString(t.tw, "\t")
		}
		_, _ = io.WriteString(t.tw, termsafe.String(c, termsafe.Cell))
	}
	_, _ = io.WriteString(t.tw, "\n")
}

// flush writes the aligned table.
func (t *table) flush() error { return t.tw.Flush() }

// changeLine is a change as one line of text, after prefix, ending with
// a newline: its names escaped (termsafe.Line), so that a group name
// holding a newline cannot forge a line of the plan a person reviews.
func changeLine(prefix string, c *reconcile.Change) string {
	return prefix + termsafe.String(oneline.Change(c), termsafe.Line) + "\n"
}
