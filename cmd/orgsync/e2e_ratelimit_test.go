package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
)

// sequenceLimits are the limits of TestNoTooManyRequestsAcrossCommands:
// allowances small enough that the sequence of commands below spends
// more than one window's (the simulator's and the client's limits
// alike), at the service's real window of a minute: the measure the
// promise of no 429 is made at (the test runs beside the others).
const (
	sequenceReads    = 15
	sequenceRequests = 20
	sequenceWindow   = time.Minute
)

// TestNoTooManyRequestsAcrossCommands runs what an administrator runs
// back to back, each command a process of its own: plan, sync (holding
// the removals for approval), approve, invites list, plan --out and apply
// of a new user, and a daemon's run, against the simulator at the
// sequence's limits. Each process starts with a full allowance of its
// own, but the service counts the application's requests across them:
// with the state directory, they share what they spent (state.dir/limits)
// and the simulator answers no 429, though the sequence sends more than
// a window allows.
func TestNoTooManyRequestsAcrossCommands(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{PageSize: 2, Limits: gate.Limits{Read: sequenceReads, App: sequenceRequests, Window: sequenceWindow}})
	cfg := configFor(t, dir, "csv", s.url, "maxRemovals: 50%", "maxRemovals: 1\nstate:\n  dir: state",
		"limits: {reads: 6000, requests: 6000}", fmt.Sprintf("limits: {reads: %d, requests: %d, window: 1m}", sequenceReads, sequenceRequests))
	appendFile(t, cfg, fmt.Sprintf("schedule:\n  cron: \"@every 1s\"\n  allowFrequentSchedule: true\n  listen: %q\n", anyPort))
	run := func(args ...string) result {
		t.Helper()
		r := runBinaryFor(t, 3*time.Minute, nil, append(args, "--config", cfg)...)
		if r.code != exitOK && r.code != exitChanges {
			t.Fatalf("orgsync %s: exit %d\n%s\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
		return r
	}
	start := time.Now()
	run("plan")
	id := heldID.FindStringSubmatch(run("sync").stdout)
	if id == nil {
		t.Fatal("sync held no approval")
	}
	run("approve", id[1], "--yes")
	run("invites", "list")
	csv := filepath.Join(dir, "csv", "users.csv")
	appendFile(t, csv, "Nina,North,nina@example.com,US,eng\n")
	saved := filepath.Join(t.TempDir(), "plan.json")
	run("plan", "--out", saved)
	run("apply", saved)
	cmd, stderr := startBinary(t, "daemon", "--config", cfg, "--log-format", "json")
	base := "http://" + listening(t, stderr)
	waitFor(t, "the daemon's first run", 3*time.Minute, func() bool {
		_, m := get(base + "/metrics")
		return metricValue(m, `orgsync_runs_total{result="success"}`) >= 1
	})
	stopBinary(t, cmd)
	st := s.Stats()
	sent := 0
	for _, byStatus := range st.Requests {
		for _, n := range byStatus {
			sent += n
		}
	}
	if st.TooManyRequests != 0 {
		t.Errorf("%d answers 429 in the sequence", st.TooManyRequests)
	}
	if counted := sent - st.Requests["token"][200]; counted <= sequenceRequests {
		t.Errorf("the sequence sent %d requests (token requests aside): no more than a window allows, so it shows nothing", counted)
	}
	if _, found := groupsOf(s, "nina@example.com"); !found {
		t.Error("apply did not create nina")
	}
	if _, err := os.Stat(filepath.Join(dir, "csv", "state", "limits")); err != nil {
		t.Errorf("no shared limits in the state directory: %v", err)
	}
	t.Logf("%d requests (token requests included) in %s, %d answered 429", sent, time.Since(start).Round(time.Second), st.TooManyRequests)
}
