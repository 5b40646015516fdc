package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
)

// TestUnansweredRequestsAreUnknown: the simulator applies every action
// request and then drops the connection or answers 500 (retries off):
// the sync fails, and what it sent is recorded, reported and printed as
// unknown (sent, no answer: the service may have applied it), never as
// not-sent or failed; the next run's read settles it: with the service
// answering again, nothing of it is planned again (the simulator had
// applied it) and the organization is in sync.
func TestUnansweredRequestsAreUnknown(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{Faults: gate.Faults{Seed: 3, AmbiguousRate: 1}})
	cfg := configFor(t, dir, "csv", s.url, "  limits: {reads: 6000, requests: 6000}\n", "  limits: {reads: 6000, requests: 6000}\n  retries: {max: -1}\n",
		"maxRemovals: 50%", "maxRemovals: 50%\nstate:\n  dir: state")
	report := filepath.Join(dir, "report.csv")
	r := runBinary(t, nil, "sync", "--config", cfg, "--report", report)
	if r.code != exitError || !strings.Contains(r.stdout, "unknown (the next run's read tells whether the service applied it)") ||
		!strings.Contains(r.stdout, "sent, no answer: the service may have applied it") {
		t.Fatalf("sync without answers: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if n := s.Stats().Faults[gate.FaultAmbiguous500] + s.Stats().Faults[gate.FaultAmbiguousDrop]; n == 0 {
		t.Fatalf("no request was applied without an answer: %v", s.Stats().Faults)
	}
	h := runBinary(t, nil, "history", "--config", cfg, "--output", "json")
	if !strings.Contains(h.stdout, `"user":"dave@example.com"`) || strings.Count(h.stdout, `"result":"unknown"`) != strings.Count(h.stdout, "\n") ||
		strings.Contains(h.stdout, "not-sent") {
		t.Errorf("history: want every entry unknown:\n%s", h.stdout)
	}
	if text := runBinary(t, nil, "history", "--config", cfg).stdout; !strings.Contains(text, "unknown") {
		t.Errorf("history as text:\n%s", text)
	}
	rows, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rows), ",unknown,,") || !strings.Contains(string(rows), "sent without an answer") || strings.Contains(string(rows), ",failed,") {
		t.Errorf("report: want its changes unknown, and the run's count of them:\n%s", rows)
	}

	s.SetFaults(gate.Faults{})
	p := runBinary(t, nil, "plan", "--config", cfg, "--detailed-exitcode")
	if p.code != exitOK {
		t.Errorf("plan once the service answers: exit %d, want 0 (the unanswered requests had been applied)\n%s\n%s", p.code, p.stdout, p.stderr)
	}
}
