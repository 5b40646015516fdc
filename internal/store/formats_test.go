package store

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/store/formattest"
)

// The formats' current versions, as the golden tests know them.
const (
	approvalVersion = 0
	runsVersion     = 0
	historyVersion  = 0
	journalVersion  = 0
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
	d := writeSamples(t)
	for _, f := range []struct {
		name, file string
		version    int
	}{
		{"approval.json", filepath.Join(approvalsDir, "0123abcd.json"), approvalVersion},
		{"runs.jsonl", runsFile, runsVersion},
		{"history.jsonl", historyFile, historyVersion},
		{"journal.jsonl", filepath.Join(approvalsDir, "fedcba98.journal.jsonl"), journalVersion},
	} {
		b, err := os.ReadFile(filepath.Join(d.Path(), f.file))
		if err != nil {
			t.Fatal(err)
		}
		formattest.Current(t, f.name, f.version, b)
	}
}
