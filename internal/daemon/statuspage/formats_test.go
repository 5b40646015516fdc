package statuspage

import (
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/store/formattest"
)

// sampleAPIStatus is a status with every field of /api/runs set: a held
// run and a failed one, a pending approval of one of every change
// (narrowed, and an attempt to approve it failed), one rejected, and each
// note.
func sampleAPIStatus() Status {
	t0 := time.Date(2026, 11, 26, 10, 15, 0, 0, time.UTC)
	who := store.Decider{By: "alice", Via: "orgsync approve"}
	return Status{Now: t0.Add(5 * time.Hour), NextRun: t0.Add(6 * time.Hour),
		Runs: []store.Run{
			{ID: "20261126T101500.000Z", Org: "emea", Start: t0, End: t0.Add(90 * time.Second), Mode: "sync", Result: store.RunHeld,
				Changes: map[string]int{"create": 2, "update": 1}, Failures: 1, Requests: 3, Status429: 1, Approval: "0123abcd", Held: 7,
				Read: "incremental", ReadReason: "last full read 3h ago, next in 21h"},
			{ID: "20261126T111500.000Z", Org: "amer", Start: t0.Add(time.Hour), End: t0.Add(time.Hour + time.Second), Mode: "sync",
				Result: store.RunFailure, Error: "users.csv: no such file", Phase: "sources", Read: "full"},
		},
		Pending: []store.Approval{{ID: "0123abcd", Org: "emea", Created: t0, Updated: t0.Add(time.Hour), Run: "20261126T101500.000Z",
			Reason: "4 removals exceed maxRemovals 2", Status: store.Pending, Changes: formattest.Changes(),
			Narrowed: []store.Narrowing{{Time: t0.Add(time.Hour), Run: "20261126T111500.000Z", Dropped: formattest.Changes()[6:], Left: 7}},
			Attempts: []store.Attempt{{Time: t0.Add(2 * time.Hour), Run: "20261126T121500.000Z", Decided: who, Phase: "sources", Error: "users.csv: no such file"}}}},
		Resolved: []store.Approval{{ID: "89abcdef", Org: "amer", Created: t0.Add(-24 * time.Hour), Updated: t0.Add(-24 * time.Hour),
			Run: "20261125T101500.000Z", Reason: "3 removals exceed maxRemovals 1", Status: store.Rejected,
			Changes: formattest.Changes()[4:6], Closed: t0.Add(-time.Hour), Decided: &who, TakenUp: "20261126T101500.000Z", HeldAgain: "0123abcd"}},
		ConfigProblem: "mapping[0].targets (line 9): required", StateNote: "no state directory: approvals and history are not kept",
		Warning: "the page is served beyond this machine without authentication"}
}

// TestGoldenAPIRuns: what today's code serves at /api/runs is the golden
// file of its current version.
func TestGoldenAPIRuns(t *testing.T) {
	code, body := get(t, Handler(sampleAPIStatus, nil), "/api/runs")
	if code != 200 {
		t.Fatalf("/api/runs: %d %s", code, body)
	}
	formattest.Current(t, "api-runs.json", APIFormatVersion, []byte(body))
}

// TestAPIRunsHoldsNoCoreType: /api/runs' format holds no type of the
// core's (approvals' changes go through planjson).
func TestAPIRunsHoldsNoCoreType(t *testing.T) {
	formattest.NoCoreTypes(t, apiRuns{})
}

// TestAPIRunsDocumented: the manual names every field of /api/runs (a
// change's as the JSON plan's), and its version.
func TestAPIRunsDocumented(t *testing.T) {
	docs := formattest.Section(t, "../../../docs/change-control.md", "### /api/runs") +
		formattest.Section(t, "../../../docs/commands.md", "### The JSON plan")
	formattest.FieldsDocumented(t, docs, APIFormatVersion, "api-runs.json")
	formattest.VersionDocumented(t, "../../../docs/change-control.md", "`/api/runs`", APIFormatVersion)
}
