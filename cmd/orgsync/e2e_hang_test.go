package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
)

// A service that accepts connections and never answers fails plan, sync
// and validate --check-target in about the configured request timeout,
// with exit 1 (never a panic, whose exit code 2 plan --detailed-exitcode
// gives to "changes pending"), naming target.baseURL and the timeout key.
func TestHangingServiceFailsInTheTimeout(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{Faults: gate.Faults{HangAll: true}})
	cfg := configFor(t, dir, "csv", s.url, "target:\n", "target:\n  timeouts: {request: 1s}\n")
	for _, args := range [][]string{
		{"plan", "--config", cfg, "--detailed-exitcode"},
		{"sync", "--config", cfg},
		{"validate", "--check-target", "--config", cfg},
	} {
		start := time.Now()
		r := runBinary(t, nil, args...)
		elapsed := time.Since(start)
		out := r.stdout + r.stderr
		if r.code != exitError || elapsed < time.Second || elapsed > 6*time.Second {
			t.Errorf("%s: exit %d after %s, want 1 after about 1s\n%s", args[0], r.code, elapsed, out)
		}
		for _, want := range []string{s.url, "no answer within 1s", "target.baseURL", "target.timeouts.request"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: output does not say %q:\n%s", args[0], want, out)
			}
		}
		if strings.Contains(out, "panic") || strings.Contains(out, "goroutine ") {
			t.Errorf("%s: a panic:\n%s", args[0], out)
		}
	}
	if n := s.Stats().Faults[gate.FaultHang]; n == 0 {
		t.Error("the simulator held no request: the test proves nothing")
	}
}

// A service that leaves some requests unanswered: each such attempt times
// out and is retried, one sync converges, and the next plan finds nothing
// to do.
func TestSomeRequestsHangSyncConverges(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{Faults: gate.Faults{Seed: 2, HangRate: 0.3}})
	cfg := configFor(t, dir, "csv", s.url, "target:\n",
		"target:\n  timeouts: {request: 300ms}\n  retries: {max: 20, minWait: 10ms, maxWait: 50ms}\n")
	if r := runBinary(t, nil, "sync", "--config", cfg); r.code != exitOK {
		t.Fatalf("sync: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r := runBinary(t, nil, "plan", "--config", cfg, "--detailed-exitcode"); r.code != exitOK {
		t.Errorf("plan after sync: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if n := s.Stats().Faults[gate.FaultHang]; n == 0 {
		t.Error("the simulator held no request: the test proves nothing")
	}
}

// The daemon against a service that never answers: every run fails in
// about the timeout, the daemon stays up and healthy, reports the failed
// runs, and its goroutines do not pile up from run to run.
func TestDaemonSurvivesHangingService(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{Faults: gate.Faults{HangAll: true}})
	cfg := configFor(t, dir, "csv", s.url, "target:\n", "target:\n  timeouts: {request: 300ms}\n")
	appendFile(t, cfg, fmt.Sprintf("schedule:\n  cron: \"@every 1s\"\n  allowFrequentSchedule: true\n  listen: %q\n", anyPort))
	cmd, stderr := startBinary(t, "daemon", "--config", cfg, "--log-format", "json")
	base := "http://" + listening(t, stderr)
	goroutinesAfter := func(runs float64) float64 {
		waitFor(t, fmt.Sprintf("%v failed runs", runs), 30*time.Second, func() bool {
			_, m := get(base + "/metrics")
			return metricValue(m, `orgsync_runs_total{result="failure"}`) >= runs
		})
		_, m := get(base + "/metrics")
		return metricValue(m, "go_goroutines")
	}
	early, late := goroutinesAfter(2), goroutinesAfter(6)
	if late > early+3 {
		t.Errorf("goroutines grew from %v after 2 failed runs to %v after 6", early, late)
	}
	code, body := get(base + "/healthz")
	if last := lastRunOf(base); code != 200 || !strings.HasPrefix(body, `{"status":"failing"`) || last == nil || !strings.Contains(last.Error, "target.timeouts.request") {
		t.Errorf("/healthz %d %s, /api/runs' last run %+v: want failing, and the failed run with what to check", code, body, last)
	}
	if code := stopBinary(t, cmd); code != exitOK {
		t.Errorf("daemon exit %d after SIGTERM\n%s", code, stderr.String())
	}
	if strings.Contains(stderr.String(), "panic") {
		t.Errorf("a panic:\n%s", stderr.String())
	}
}
