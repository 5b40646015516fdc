package runreport

import (
	"bytes"
	"encoding/csv"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/reconcile"
)

func sample(t *testing.T) *Report { return sampleWith(t, nil) }

// sampleWith is the sample report, its two changes first given to edit
// when edit is not nil.
func sampleWith(t *testing.T, edit func(entries []store.Entry)) *Report {
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	r := &Report{SpoolDir: t.TempDir(),
		Generated: t0.Add(time.Minute), Config: "/etc/orgsync/orgsync.yaml", Host: "sync-host",
		Held: []store.Approval{{ID: "0123abcd", Org: "emea", Created: t0, Reason: "3 removals exceed maxRemovals 1", Status: store.Pending,
			Changes: []reconcile.Change{{Kind: reconcile.KindRemove, User: reconcile.User{Type: reconcile.FederatedID, Email: "mallory@example.com"}}}}},
		Runs: []store.Run{{ID: "r1", Org: "emea", Start: t0, End: t0.Add(1500 * time.Millisecond), Mode: "sync", Result: store.RunHeld,
			Changes: map[string]int{"update": 1, "create": 2}, Requests: 4, Status429: 1, Approval: "0123abcd"}},
	}
	entries := []store.Entry{
		{Run: "r1", Time: t0, Org: "emea", User: "ann@example.com", Kind: "create", Steps: []string{"create federatedID", "add Design"}, Result: store.ResultApplied, Reason: "sources"},
		{Run: "r1", Time: t0, Org: "emea", User: "<bob>@example.com", Kind: "update", Steps: []string{"add Sales"}, Result: store.ResultFailed, Code: "error.group.not_found", Message: "no group"}}
	if edit != nil {
		edit(entries)
	}
	err := r.AddChanges(entries[:1])
	if err == nil {
		err = r.AddChanges(entries[1:])
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestCSV(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := sample(t).Write(&b, "csv"); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 || rows[1][0] != "summary" || rows[2][0] != "change" || rows[3][8] != "error.group.not_found" ||
		rows[4][0] != "held" || rows[4][11] != "0123abcd" || rows[4][12] != "'- remove mallory@example.com (federatedID)" {
		t.Fatalf("rows %q", rows)
	}
	if want := "create=2 update=1; 0 failures; 4 requests, 1 answered 429; 1.5s"; rows[1][12] != want {
		t.Errorf("summary details %q, want %q", rows[1][12], want)
	}
	if rows[2][6] != "create federatedID; add Design" {
		t.Errorf("steps %q", rows[2][6])
	}
}

// TestCSVCellsAreNotFormulas replays finding 6 of issue 33: a user, a
// group in the steps, a server's message and a held change whose text
// starts with =, +, - or @ reach the CSV report as text a spreadsheet
// does not evaluate, each read back with a quote in front.
func TestCSVCellsAreNotFormulas(t *testing.T) {
	t.Parallel()
	r := sampleWith(t, func(entries []store.Entry) {
		e := &entries[1]
		e.User, e.Message, e.Steps = "=1+2@example.com", "@SUM(A1:A9)", []string{"+add =SUM(1+2)"}
	})
	r.Runs[0].Error = "-2+3"
	var b bytes.Buffer
	if err := r.Write(&b, "csv"); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		row, col int
		want     string
	}{{3, 4, "'=1+2@example.com"}, {3, 9, "'@SUM(A1:A9)"}, {3, 6, "'+add =SUM(1+2)"}, {1, 9, "'-2+3"}, {4, 12, "'- remove mallory@example.com (federatedID)"}} {
		if got := rows[c.row][c.col]; got != c.want {
			t.Errorf("row %d column %s: %q, want %q", c.row, rows[0][c.col], got, c.want)
		}
	}
}

func TestHTMLIsSelfContainedAndEscaped(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := sample(t).Write(&b, "html"); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{"ann@example.com", "&lt;bob&gt;@example.com", "error.group.not_found", "<td>0123abcd</td>", `class="held"`, "Changes (2)",
		"Generated 2026-11-25 10:01:00Z on sync-host, configuration /etc/orgsync/orgsync.yaml",
		"<th>create</th><th>update</th>", `<td class="n">2</td><td class="n">1</td>`,
		"Held for approval (1)", "<td>- remove mallory@example.com (federatedID)</td>"} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "src=", "href=", "<bob>"} {
		if strings.Contains(html, bad) {
			t.Errorf("report has %q: it must be self-contained and escaped", bad)
		}
	}
}

func TestFormat(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{"r.csv": "csv", "R.HTML": "html", "x.htm": "html", "x.txt": "", "x": ""} {
		got, err := Format(path)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("Format(%q) = %q, %v; want %q", path, got, err, want)
		}
	}
}

// TestChangesAreKeptInAFile: the changes wait in one file, readable by
// its owner only, in the report's folder, and are written from it; Close
// removes it.
func TestChangesAreKeptInAFile(t *testing.T) {
	t.Parallel()
	r := sample(t)
	files, err := os.ReadDir(r.SpoolDir)
	if err != nil || len(files) != 1 {
		t.Fatalf("the report's folder holds %v (%v), want the file of the changes", files, err)
	}
	if fi, err := files[0].Info(); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file of the changes: %v %v", fi.Mode(), err)
	}
	for range 2 { // the file is read again for each report written
		var b bytes.Buffer
		if err := r.Write(&b, "csv"); err != nil || strings.Count(b.String(), "\nchange,") != 2 {
			t.Errorf("report %q, %v", b.String(), err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if files, _ := os.ReadDir(r.SpoolDir); len(files) != 0 || r.Changes() != 0 {
		t.Errorf("after Close: %v, %d changes", files, r.Changes())
	}
	var b bytes.Buffer
	if err := r.Write(&b, "html"); err != nil || !strings.Contains(b.String(), "Changes (0)") || !strings.Contains(b.String(), "no changes") {
		t.Errorf("report without changes: %v\n%s", err, b.String())
	}
}
