package store

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/store/formattest"
)

var t0 = time.Date(2026, 11, 26, 10, 15, 0, 0, time.UTC)

// sampleApproval is an approval with every field set.
func sampleApproval() *Approval {
	who := Decider{By: "alice", Via: "orgsync approve"}
	return &Approval{ID: "0123abcd", Org: "emea", Created: t0, Updated: t0.Add(time.Hour), Run: "20261126T101500.000Z",
		Reason: "4 removals exceed maxRemovals 2", Status: Approved, Changes: formattest.Changes(),
		Closed: t0.Add(3 * time.Hour), Decided: &who,
		Narrowed: []Narrowing{{Time: t0.Add(time.Hour), Run: "20261126T111500.000Z", Dropped: formattest.Changes()[4:5], Left: 6}},
		TakenUp:  "20261126T131500.000Z", HeldAgain: "89abcdef",
		Attempts: []Attempt{{Time: t0.Add(2 * time.Hour), Run: "20261126T121500.000Z", Decided: who, Phase: "sources", Error: "users.csv: no such file"}}}
}

// sampleRuns are two run records with every field set between them.
func sampleRuns() []*Run {
	return []*Run{
		{ID: "20261126T101500.000Z", Org: "emea", Start: t0, End: t0.Add(90 * time.Second), Mode: "sync", Result: RunHeld,
			Changes: map[string]int{"create": 2, "update": 1}, Failures: 1, Requests: 3, Status429: 1, Approval: "0123abcd", Held: 4,
			Read: "incremental", ReadReason: "last full read 3h ago, next in 21h"},
		{ID: "20261126T111500.000Z", Org: "emea", Start: t0.Add(time.Hour), End: t0.Add(time.Hour + time.Second), Mode: ModeApprove,
			Result: RunFailure, Error: "users.csv: no such file", Phase: "sources", Requests: 0, Status429: 0, Approval: "0123abcd", Read: "full"},
	}
}

// sampleEntries are history entries with every field set between them.
func sampleEntries() []Entry {
	return []Entry{
		{Run: "20261126T101500.000Z", Time: t0, Org: "emea", User: "bo@fed.example.net", Kind: "update",
			Steps: []string{"update firstname,lastname", "add Dev", "remove Design Team"}, Result: ResultApplied,
			Reason: `the sources; Dev: mapping[1] (directory "dev")`, Approval: "0123abcd", DecidedBy: "alice via orgsync approve"},
		{Run: "20261126T101500.000Z", Time: t0, Org: "emea", User: "dee@example.com", Kind: "remove", Steps: []string{"removeFromOrg"},
			Result: ResultFailed, Code: "error.user.nonexistent", Message: "User does not exist",
			Reason: "unmatched (in the organization, in no source): policy.unmatchedUsers"},
	}
}

// sampleClaim is a claim of sampleApproval by a run that sends its
// changes, as its journal holds it.
func sampleClaim() Claimant {
	return Claimant{Run: "20261126T141500.000Z", By: Decider{By: "alice", Via: "orgsync approve"}, PID: 4242, Host: "ops1", Since: t0.Add(4 * time.Hour),
		Sends: []string{"ann@example.com", "bo@fed.example.net", "dee@example.com"}}
}

// writeJournal claims approval a in d as sampleClaim, journals three
// requests (one answered, one refused in part, one without an answer)
// and leaves the journal as an interrupted apply does.
func writeJournal(t *testing.T, d *Dir, a *Approval) {
	a.Status = Pending
	if err := d.SaveApproval(a); err != nil {
		t.Fatal(err)
	}
	_, ap, _, err := d.Claim(a.ID, sampleClaim())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		keys, failed []string
		unknown      bool
	}{{keys: []string{"ann@example.com"}}, {keys: []string{"bo@fed.example.net"}, failed: []string{"bo@fed.example.net"}}, {keys: []string{"dee@example.com"}, unknown: true}} {
		n, err := ap.Sending(r.keys)
		if err != nil {
			t.Fatal(err)
		}
		if err := ap.Answered(n, r.failed, r.unknown); err != nil {
			t.Fatal(err)
		}
	}
	ap.Release()
}

// writeSamples writes the samples into a fresh state directory and
// returns it.
func writeSamples(t *testing.T) *Dir {
	d := open(t, Options{})
	if err := d.SaveApproval(sampleApproval()); err != nil {
		t.Fatal(err)
	}
	for _, r := range sampleRuns() {
		if err := d.AppendRun(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.AppendHistory(sampleEntries()); err != nil {
		t.Fatal(err)
	}
	a := sampleApproval()
	a.ID = "fedcba98"
	writeJournal(t, d, a)
	return d
}

// TestGoldenFormats: what today's code writes of an approval, the run
// records and the history is each format's golden file of its current
// version.
func TestGoldenFormats(t *testing.T) {
	t.Parallel()
	d := writeSamples(t)
	for _, f := range []struct {
		name, file string
		version    int
	}{
		{"approval.json", filepath.Join(approvalsDir, "0123abcd.json"), ApprovalFormat},
		{"runs.jsonl", runsFile, RunsFormat},
		{"history.jsonl", historyFile, HistoryFormat},
		{"journal.jsonl", filepath.Join(approvalsDir, "fedcba98.journal.jsonl"), JournalFormat},
	} {
		b, err := os.ReadFile(filepath.Join(d.Path(), f.file))
		if err != nil {
			t.Fatal(err)
		}
		formattest.Current(t, f.name, f.version, b)
	}
}

// copyInto copies the golden file at path to name in the state directory
// d, as orgsync would have left it there.
func copyInto(t *testing.T, d *Dir, path, name string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.Path(), name), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestEveryGoldenLoads: the approvals, run records, history and journals
// written by every release so far, in every format version, read back
// as they were written.
func TestEveryGoldenLoads(t *testing.T) {
	t.Parallel()
	for _, path := range formattest.Versions(t, "approval.json", ApprovalFormat) {
		d := open(t, Options{})
		copyInto(t, d, path, filepath.Join(approvalsDir, "0123abcd.json"))
		got, err := d.Approval("0123abcd")
		if err != nil || !reflect.DeepEqual(got, sampleApproval()) {
			t.Errorf("%s: %v\n got %+v\nwant %+v", path, err, got, sampleApproval())
		}
	}
	for _, path := range formattest.Versions(t, "runs.jsonl", RunsFormat) {
		d := open(t, Options{})
		copyInto(t, d, path, runsFile)
		got, err := d.Runs(0)
		var want []Run
		for _, r := range sampleRuns() {
			want = append(want, *r)
		}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v\n got %+v\nwant %+v", path, err, got, want)
		}
	}
	for _, path := range formattest.Versions(t, "history.jsonl", HistoryFormat) {
		d := open(t, Options{})
		copyInto(t, d, path, historyFile)
		if got, err := d.History(Filter{}); err != nil || !reflect.DeepEqual(got, sampleEntries()) {
			t.Errorf("%s: %v\n got %+v\nwant %+v", path, err, got, sampleEntries())
		}
	}
	for _, path := range formattest.Versions(t, "journal.jsonl", JournalFormat) {
		j, err := readJournal(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if !reflect.DeepEqual(j.claim, sampleClaim()) || !reflect.DeepEqual(j.confirmed, map[string]bool{"ann@example.com": true}) ||
			!reflect.DeepEqual(j.failed, map[string]bool{"bo@fed.example.net": true}) || !reflect.DeepEqual(j.unknown, map[string]bool{"dee@example.com": true}) {
			t.Errorf("%s: read as %+v", path, j)
		}
	}
}

// TestLaterFormats: an approval or a journal a later orgsync wrote in a
// format this one does not know is refused, naming the file and what to
// do (a pending approval that cannot be read cannot be respected); a
// line of runs.jsonl or history.jsonl of a later format is passed over,
// the others read.
func TestLaterFormats(t *testing.T) {
	t.Parallel()
	d := writeSamples(t)
	later := func(name, from, to string) {
		path := filepath.Join(d.Path(), name)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strings.Replace(string(b), from, to, 1)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	later(filepath.Join(approvalsDir, "0123abcd.json"), `"formatVersion": 1`, `"formatVersion": 2`)
	if _, err := d.Approval("0123abcd"); !errors.Is(err, ErrLaterFormat) || !strings.Contains(err.Error(), "0123abcd.json: format 2") {
		t.Errorf("an approval of format 2: %v", err)
	}
	if _, err := d.Approvals("", ""); !errors.Is(err, ErrLaterFormat) {
		t.Errorf("the approvals, one of format 2: %v", err)
	}
	later(runsFile, `"formatVersion":1`, `"formatVersion":2`)
	if runs, err := d.Runs(0); err != nil || len(runs) != 1 || runs[0].ID != sampleRuns()[1].ID {
		t.Errorf("runs, the first of format 2: %v %+v", err, runs)
	}
	later(historyFile, `"formatVersion":1`, `"formatVersion":2`)
	if entries, err := d.History(Filter{}); err != nil || len(entries) != 1 || entries[0].User != "dee@example.com" {
		t.Errorf("history, the first entry of format 2: %v %+v", err, entries)
	}
	journal := filepath.Join(approvalsDir, "fedcba98.journal.jsonl")
	later(journal, `"formatVersion":1`, `"formatVersion":2`)
	if _, err := readJournal(filepath.Join(d.Path(), journal)); !errors.Is(err, ErrLaterFormat) || !strings.Contains(err.Error(), "fedcba98.journal.jsonl") {
		t.Errorf("a journal of format 2: %v", err)
	}
}

// TestFormatsHoldNoCoreType: the state directory's formats hold no type
// of the core's (changes go through planjson).
func TestFormatsHoldNoCoreType(t *testing.T) {
	t.Parallel()
	for _, v := range []any{approvalFile{}, runLine{}, entryLine{}, journalLine{}} {
		formattest.NoCoreTypes(t, v)
	}
}

// TestVersionsDocumented: the manual's table of formats gives each of
// the state directory's formats at its version.
func TestVersionsDocumented(t *testing.T) {
	t.Parallel()
	const page = "../../docs/change-control.md"
	formattest.VersionDocumented(t, page, "`approvals/ID.json`", ApprovalFormat)
	formattest.VersionDocumented(t, page, "`runs.jsonl`", RunsFormat)
	formattest.VersionDocumented(t, page, "`history.jsonl`", HistoryFormat)
	formattest.VersionDocumented(t, page, "`approvals/ID.journal.jsonl`", JournalFormat)
}
