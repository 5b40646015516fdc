package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
)

// freeAddr returns a loopback address no one listens on now, for a server
// that cannot bind port 0 and say which port it got (see anyPort).
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// waitFor polls cond every 20 ms until it holds or the deadline passes.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func get(url string) (int, string) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// startBinary starts orgsync in the background; the returned buffer
// collects its standard error.
func startBinary(t *testing.T, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	var stderr syncBuffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, &stderr
}

// stopBinary sends SIGTERM and returns the exit code.
func stopBinary(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("orgsync did not stop within 30 s of SIGTERM")
	}
	return cmd.ProcessState.ExitCode()
}

func TestDaemonScheduleHealthAndMetrics(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url)
	extra := fmt.Sprintf("schedule:\n  cron: \"@every 1s\"\n  allowFrequentSchedule: true\n  listen: %q\n", anyPort)
	appendFile(t, cfg, extra)

	cmd, stderr := startBinary(t, "daemon", "--config", cfg, "--log-format", "json")
	base := "http://" + listening(t, stderr)
	waitFor(t, "/readyz", 10*time.Second, func() bool { c, _ := get(base + "/readyz"); return c == 200 })
	if c, _ := get(base + "/healthz"); c != 200 {
		t.Errorf("/healthz: %d", c)
	}
	if !strings.Contains(stderr.String(), "runs every 1s") {
		t.Errorf("no warning about the frequent schedule:\n%s", stderr.String())
	}
	// Two scheduled runs: the first applies the changes, the second finds none.
	waitFor(t, "two successful runs", 20*time.Second, func() bool {
		_, m := get(base + "/metrics")
		return metricValue(m, `orgsync_runs_total{result="success"}`) >= 2
	})
	_, m := get(base + "/metrics")
	for _, want := range []string{
		`orgsync_changes_total{kind="create"} 3`,
		`orgsync_api_requests_total{status="200"}`,
		"orgsync_api_rate_limited_total 0",
		"orgsync_last_success_timestamp_seconds",
		"orgsync_run_duration_seconds_count",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if _, found := groupsOf(s, "dave@example.com"); !found {
		t.Error("the scheduled run did not create dave")
	}
	// The daemon prints no plan: its log has each change, once.
	if n := strings.Count(stderr.String(), `"msg":"planned: + create dave@example.com`); n != 1 {
		t.Errorf("the daemon logs dave's creation %d times, want once:\n%s", n, stderr.String())
	}
	// The runs share one client: one sign-in, not one a run; and each run's
	// requests are counted once in the metrics.
	if n := s.Stats().Requests["token"]; n[200] != 1 {
		t.Errorf("token requests = %v, want one sign-in for all runs", n)
	}
	served := 0
	for _, byStatus := range s.Stats().Requests {
		served += byStatus[200]
	}
	_, m = get(base + "/metrics")
	if counted := metricValue(m, `orgsync_api_requests_total{status="200"}`); counted > float64(served) {
		t.Errorf("metrics count %v requests answered 200, the service answered %d (counted more than once?)", counted, served)
	}
	if code := stopBinary(t, cmd); code != exitOK {
		t.Errorf("daemon exit %d after SIGTERM\n%s", code, stderr.String())
	}
}

// TestSIGTERMDuringSync stops a sync between requests; the next sync
// finishes the job and a plan then has nothing to do.
func TestSIGTERMDuringSync(t *testing.T) {
	t.Parallel()
	notGolden(t) // the second sync plans what the first did not send
	dir := exampleDir(t)
	var csv strings.Builder
	csv.WriteString("firstname,lastname,email,country,groups\n")
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&csv, "User,Number%d,user%03d@example.com,US,eng\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "csv", "users.csv"), []byte(csv.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startSim(t, dir, umsim.Options{Faults: gate.Faults{Latency: 40 * time.Millisecond}})
	cfg := configFor(t, dir, "csv", s.url)
	cmd, stderr := startBinary(t, "sync", "--config", cfg, "--log-format", "json")
	waitFor(t, "a few action requests", 30*time.Second, func() bool {
		return s.Stats().Requests[gate.EndpointAction][200] >= 3
	})
	if code := stopBinary(t, cmd); code != exitError {
		t.Errorf("sync stopped by SIGTERM: exit %d, want %d", code, exitError)
	}
	sent := s.Stats().Requests[gate.EndpointAction][200]
	if sent >= 30 {
		t.Fatalf("the sync was not interrupted: %d action requests", sent)
	}
	if !strings.Contains(stderr.String(), "context canceled") {
		t.Errorf("the interrupted run does not say it was canceled:\n%s", stderr.String())
	}
	s.SetFaults(gate.Faults{})
	if r := runBinary(t, nil, "sync", "--config", cfg); r.code != exitOK {
		t.Fatalf("second sync: exit %d\n%s", r.code, r.stderr)
	}
	if r := runBinary(t, nil, "plan", "--config", cfg, "--detailed-exitcode"); r.code != exitOK {
		t.Errorf("plan after the second sync: exit %d\n%s", r.code, r.stdout)
	}
}

// metricValue returns the value of the sample named series (name and
// labels as Prometheus prints them) in a /metrics page, or -1.
func metricValue(page, series string) float64 {
	for _, line := range strings.Split(page, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				return f
			}
		}
	}
	return -1
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestDaemonNeverOverlaps: with runs slower than the schedule, the ticks
// that come during a run are skipped, not run alongside it.
func TestDaemonNeverOverlaps(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	// A run is two delayed requests (list, act): at 700 ms each it spans a
	// whole-second tick wherever it starts.
	s := startSim(t, dir, umsim.Options{Faults: gate.Faults{Latency: 700 * time.Millisecond}})
	cfg := configFor(t, dir, "csv", s.url)
	appendFile(t, cfg, fmt.Sprintf("schedule:\n  cron: \"@every 1s\"\n  allowFrequentSchedule: true\n  runAtStart: true\n  listen: %q\n", anyPort))
	cmd, stderr := startBinary(t, "daemon", "--config", cfg, "--log-format", "json")
	addr := listening(t, stderr)
	waitFor(t, "a skipped tick and a finished run", 30*time.Second, func() bool {
		_, m := get("http://" + addr + "/metrics")
		return metricValue(m, `orgsync_runs_total{result="skipped"}`) >= 1 && metricValue(m, `orgsync_runs_total{result="success"}`) >= 1
	})
	if !strings.Contains(stderr.String(), "the previous run is still going") {
		t.Errorf("no log line for the skipped tick:\n%s", stderr.String())
	}
	if code := stopBinary(t, cmd); code != exitOK {
		t.Errorf("daemon exit %d after SIGTERM", code)
	}
}

// TestSimSubprocessSavesState runs `orgsync sim` standalone, syncs into
// it, stops it with SIGTERM and loads the state it saved.
func TestSimSubprocessSavesState(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ seed, example string }{{"org.yaml", "csv"}, {"orgs.yaml", "multiorg"}} {
		t.Run(tc.example, func(t *testing.T) {
			dir := exampleDir(t)
			state := filepath.Join(dir, "sim", tc.seed)
			cmd, stderr := startBinary(t, "sim", "--listen", anyPort, "--state", state, "--save", "--read-limit", "0", "--app-limit", "0")
			url := "http://" + listening(t, stderr)
			waitFor(t, "the simulator", 10*time.Second, func() bool { c, _ := get(url + "/_sim/state"); return c == 200 })
			cfg := configFor(t, dir, tc.example, url)
			if r := runBinary(t, nil, "sync", "--config", cfg); r.code != exitOK {
				t.Fatalf("sync: exit %d\n%s", r.code, r.stderr)
			}
			if code := stopBinary(t, cmd); code != exitOK {
				t.Fatalf("sim exit %d\n%s", code, stderr.String())
			}
			seed, err := umsim.LoadSeed(state)
			if err != nil {
				t.Fatal(err)
			}
			for _, org := range seed { // dave is in the source's design group: in every organization
				found := false
				for _, u := range org.Users {
					found = found || u.Email == "dave@example.com"
				}
				if !found {
					t.Errorf("the saved state of %s lacks the user the sync created", org.Org.ID)
				}
			}
		})
	}
}

// TestDaemonReportsLastRunAndNextRun runs the daemon in-process: it logs
// when the next run is due, at start and after each run; a failed run
// shows in /healthz and in orgsync_last_run_success, and the next
// successful run clears it.
func TestDaemonReportsLastRunAndNextRun(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url)
	appendFile(t, cfg, fmt.Sprintf("schedule:\n  cron: \"@every 1s\"\n  allowFrequentSchedule: true\n  listen: %q\n", anyPort))
	users := filepath.Join(dir, "csv", "users.csv")
	if err := os.Rename(users, users+".away"); err != nil { // the source fails
		t.Fatal(err)
	}
	stderr, stop := startDaemonInProcess(cfg)
	base := "http://" + listening(t, stderr)
	waitFor(t, "/readyz", 10*time.Second, func() bool { c, _ := get(base + "/readyz"); return c == 200 })
	if !strings.Contains(stderr.String(), `"msg":"next run","at":`) {
		t.Errorf("no next-run line at start:\n%s", stderr.String())
	}
	var last *store.Run
	waitFor(t, "a failed run in /api/runs", 20*time.Second, func() bool { last = lastRunOf(base); return last != nil })
	if _, body := get(base + "/healthz"); last.Result != "failure" || !strings.Contains(last.Error, "users.csv") || !strings.HasPrefix(body, `{"status":"failing","since":`) {
		t.Errorf("after a failed run: /api/runs %+v, /healthz %s", last, body)
	}
	if _, m := get(base + "/metrics"); metricValue(m, "orgsync_last_run_success") != 0 || metricValue(m, "orgsync_last_run_timestamp_seconds") <= 0 {
		t.Errorf("metrics after a failed run:\n%s", m)
	}
	if err := os.Rename(users+".away", users); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a successful run", 20*time.Second, func() bool {
		_, m := get(base + "/metrics")
		return metricValue(m, "orgsync_last_run_success") == 1
	})
	if _, body := get(base + "/healthz"); !strings.HasPrefix(body, `{"status":"ok","since":`) {
		t.Errorf("/healthz after a successful run: %s", body)
	}
	if n := strings.Count(stderr.String(), `"msg":"next run"`); n < 3 {
		t.Errorf("%d next-run lines; want one at start and one after each run:\n%s", n, stderr.String())
	}
	if code := stop(); code != exitOK {
		t.Errorf("daemon exit %d", code)
	}
}

// startDaemonInProcess runs `orgsync daemon --config cfg` in-process,
// logging JSON to the returned buffer; stop ends it and returns its exit
// code.
func startDaemonInProcess(cfg string) (stderr *syncBuffer, stop func() int) {
	ctx, cancel := context.WithCancel(context.Background())
	stderr = &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- dispatch(ctx, []string{"daemon", "--config", cfg, "--log-format", "json"}, stdio{out: io.Discard, err: stderr})
	}()
	return stderr, func() int { cancel(); return <-done }
}

// TestDaemonTimezone: the next run is computed in schedule.timezone. The
// wait is printed as a Go duration, which has no hours part under an hour.
func TestDaemonTimezone(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	cfg := configFor(t, dir, "csv", "http://127.0.0.1:1") // no run is due during the test
	appendFile(t, cfg, fmt.Sprintf("schedule:\n  cron: \"30 2 * * *\"\n  timezone: Asia/Kolkata\n  listen: %q\n", anyPort))
	stderr, stop := startDaemonInProcess(cfg)
	waitFor(t, "the next-run line", 10*time.Second, func() bool { return strings.Contains(stderr.String(), `"msg":"next run"`) })
	stop()
	if !regexp.MustCompile(`"msg":"next run","at":"\d{4}-\d\d-\d\dT02:30:00\+05:30","in":"(\d+h)?(\d+m)?[\d.]+m?s"`).MatchString(stderr.String()) {
		t.Errorf("next run not at 02:30 Asia/Kolkata:\n%s", stderr.String())
	}
}
