// Package runreport writes the report of one run: where and when it was
// made, a summary line for each organization (its counts, a table in the
// HTML), every change sent and the changes held for approval, as CSV or
// as one self-contained HTML file (styles inline, no script, no external
// asset). The changes are kept in a file as they come (a run may apply a
// million), and streamed from it into the report.
package runreport

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/util/csvsafe"
	"github.com/orgsync/orgsync/internal/util/oneline"
	"github.com/orgsync/orgsync/internal/util/plural"
	"github.com/orgsync/orgsync/reconcile"
)

// Report is what one run did.
type Report struct {
	// Generated is when the report was written, Config the configuration
	// the run used, Host the machine it ran on.
	Generated time.Time
	Config    string
	Host      string
	Runs      []store.Run
	// Held are the approvals pending after the run, with what they hold.
	Held []store.Approval
	// SpoolDir is the folder of the file that keeps the changes until
	// the report is written (AddChanges); "" for the system's temporary
	// folder.
	SpoolDir string
	changes  spool
}

// AddChanges adds changes the run applied (or failed to) to the report.
// They are written to a temporary file in SpoolDir, not kept in memory.
func (r *Report) AddChanges(entries []store.Entry) error { return r.changes.add(r.SpoolDir, entries) }

// Changes is the number of changes added.
func (r *Report) Changes() int { return r.changes.n }

// Close removes the file of the changes; the report has none after.
func (r *Report) Close() error { return r.changes.close() }

// Kinds are the kinds of the changes the runs applied, sorted: the
// columns of the counts.
func (r *Report) Kinds() []string {
	kinds := map[string]bool{}
	for _, run := range r.Runs {
		for k := range run.Changes {
			kinds[k] = true
		}
	}
	return slices.Sorted(maps.Keys(kinds))
}

// Format is a report's file format, from its extension.
func Format(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".csv":
		return "csv", nil
	case ".html", ".htm":
		return "html", nil
	default:
		return "", fmt.Errorf("report %s: name a .csv or .html file", path)
	}
}

// Write writes r to w in format (csv or html).
func (r *Report) Write(w io.Writer, format string) error {
	switch format {
	case "csv":
		return r.writeCSV(w)
	case "html":
		return r.writeHTML(w)
	}
	return fmt.Errorf("report format %q: want csv or html", format)
}

// writeHTML writes the page: its head (summary, counts), a row for each
// change, and its tail (what is held).
func (r *Report) writeHTML(w io.Writer) error {
	if err := page.ExecuteTemplate(w, "head", r); err != nil {
		return err
	}
	if err := r.changes.each(func(e *store.Entry) error { return page.ExecuteTemplate(w, "change", e) }); err != nil {
		return err
	}
	return page.ExecuteTemplate(w, "tail", r)
}

var csvHeader = []string{"row", "run", "org", "time", "user", "kind", "steps", "result", "code", "message", "reason", "approval", "details"}

// writeCSV writes a summary row for each run, a change row for each
// entry, then a held row for each change held for approval; a cell a
// spreadsheet would read as a formula is neutralized (csvsafe).
func (r *Report) writeCSV(w io.Writer) error {
	cw := csvsafe.NewWriter(w)
	_ = cw.Write(csvHeader)
	for _, run := range r.Runs {
		_ = cw.Write([]string{"summary", run.ID, run.Org, run.End.Format(time.RFC3339), "", run.Mode, "", run.Result,
			"", run.Error, "", run.Approval, Details(&run)})
	}
	err := r.changes.each(func(e *store.Entry) error {
		return cw.Write([]string{"change", e.Run, e.Org, e.Time.Format(time.RFC3339), e.User, e.Kind, strings.Join(e.Steps, "; "),
			e.Result, e.Code, e.Message, e.Reason, e.Approval, ""})
	})
	if err != nil {
		return err
	}
	for _, a := range r.Held {
		for i := range a.Changes {
			c := &a.Changes[i]
			_ = cw.Write([]string{"held", a.Run, a.Org, a.Created.Format(time.RFC3339), c.Key(), string(c.Kind), "", store.Pending,
				"", "", a.Reason, a.ID, oneline.Change(c)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// Details sums up a run: its changes by kind, failures, requests, 429
// answers and duration.
func Details(run *store.Run) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(run.Changes)) {
		parts = append(parts, k+"="+strconv.Itoa(run.Changes[k]))
	}
	if len(parts) == 0 {
		parts = append(parts, "no changes")
	}
	failures := plural.Of(run.Failures, "failure", "failures")
	if run.Unknown > 0 {
		failures += fmt.Sprintf(" (%d sent without an answer: the service may have applied them; the next run's read tells)", run.Unknown)
	}
	return fmt.Sprintf("%s; %s; %s, %d answered 429; %s", strings.Join(parts, " "), failures,
		plural.Of(run.Requests, "request", "requests"), run.Status429, run.Duration().Round(time.Millisecond))
}

//go:embed report.html
var files embed.FS

var page = template.Must(template.New("").Funcs(template.FuncMap{
	"details": Details,
	"join":    strings.Join,
	"time":    func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05Z") },
	"count":   func(run store.Run, kind string) int { return run.Changes[kind] },
	"elapsed": func(run store.Run) time.Duration { return run.Duration().Round(time.Millisecond) },
	"line":    func(c reconcile.Change) string { return oneline.Change(&c) },
}).ParseFS(files, "report.html"))
