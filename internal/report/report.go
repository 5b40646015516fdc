// Package report writes the report of one run: a summary line for each
// organization and every change sent, as CSV or as one self-contained
// HTML file (styles inline, no script, no external asset).
package report

import (
	"embed"
	"encoding/csv"
	"fmt"
	"html/template"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/state"
)

// Report is what one run did.
type Report struct {
	Runs    []state.Run
	Entries []state.Entry
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
		return page.Execute(w, r)
	}
	return fmt.Errorf("report format %q: want csv or html", format)
}

var csvHeader = []string{"row", "run", "org", "time", "user", "kind", "steps", "result", "code", "message", "reason", "approval", "details"}

// writeCSV writes a summary row for each run, then a change row for each
// entry.
func (r *Report) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(csvHeader)
	for _, run := range r.Runs {
		_ = cw.Write([]string{"summary", run.ID, run.Org, run.End.Format(time.RFC3339), "", run.Mode, "", run.Result,
			"", run.Error, "", run.Approval, Details(&run)})
	}
	for _, e := range r.Entries {
		_ = cw.Write([]string{"change", e.Run, e.Org, e.Time.Format(time.RFC3339), e.User, e.Kind, strings.Join(e.Steps, "; "),
			e.Result, e.Code, e.Message, e.Reason, e.Approval, ""})
	}
	cw.Flush()
	return cw.Error()
}

// Details sums up a run: its changes by kind, failures, requests, 429
// answers and duration.
func Details(run *state.Run) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(run.Changes)) {
		parts = append(parts, k+"="+strconv.Itoa(run.Changes[k]))
	}
	if len(parts) == 0 {
		parts = append(parts, "no changes")
	}
	return fmt.Sprintf("%s; %d failures; %d requests, %d answered 429; %s", strings.Join(parts, " "), run.Failures,
		run.Requests, run.Status429, run.Duration().Round(time.Millisecond))
}

//go:embed report.html
var files embed.FS

var page = template.Must(template.New("report.html").Funcs(template.FuncMap{
	"details": Details,
	"join":    strings.Join,
	"time":    func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05Z") },
}).ParseFS(files, "report.html"))
