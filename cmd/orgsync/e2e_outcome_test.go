package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/daemon/statuspage"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/target/umsim"
)

// runsOf reads the run records of the state directory beside cfg.
func runsOf(t *testing.T, cfg string) []store.Run {
	t.Helper()
	st, err := store.Open(filepath.Join(filepath.Dir(cfg), "state"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	runs, err := st.Runs(0)
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// TestUnreadableSourceIsRecordedShownAndNotified: a run whose source
// cannot be read leaves an outcome everywhere one is looked for: a run
// record with the phase and the error, the daemon's status page and
// /api/runs, a failure notification, the metrics, and the report of a
// sync --report.
func TestUnreadableSourceIsRecordedShownAndNotified(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	h := startHooks(t)
	cfg := configFor(t, dir, "csv", s.url, "maxRemovals: 50%", "maxRemovals: 50%\nstate:\n  dir: state")
	appendFile(t, cfg, fmt.Sprintf("notify:\n  webhooks: [{url: %s}]\nschedule:\n  cron: \"@every 1h\"\n  allowFrequentSchedule: true\n  listen: %q\n", h.urlRef(t), anyPort))
	if err := os.Rename(filepath.Join(dir, "csv", "users.csv"), filepath.Join(dir, "csv", "users.csv.moved")); err != nil {
		t.Fatal(err)
	}
	cmd, stderr := startBinary(t, "daemon", "--config", cfg, "--run-at-start", "--log-format", "json")
	base := "http://" + listening(t, stderr)
	var st statuspage.Status
	waitFor(t, "the failed run in /api/runs", 20*time.Second, func() bool {
		_, body := get(base + "/api/runs")
		return json.Unmarshal([]byte(body), &st) == nil && len(st.Runs) == 1
	})
	run := st.Runs[0]
	if run.Result != store.RunFailure || run.Phase != "sources" || !strings.Contains(run.Error, "users.csv") {
		t.Errorf("the run in /api/runs: %+v, want a failure in the sources naming users.csv", run)
	}
	_, page := get(base + "/")
	for _, want := range []string{`class="failure"`, "users.csv", "sources", "default: failing since", "(no successful run recorded)"} {
		if !strings.Contains(page, want) {
			t.Errorf("the status page lacks %q", want)
		}
	}
	waitFor(t, "the failure notification", 10*time.Second, func() bool { return len(h.events()) > 0 })
	if ev := h.events()[0]; ev["event"] != "failure" || ev["phase"] != "sources" || !strings.Contains(fmt.Sprint(ev["error"]), "users.csv") || ev["host"] == "" {
		t.Errorf("notification %v, want a failure in the sources naming users.csv, from this host", ev)
	}
	_, m := get(base + "/metrics")
	if metricValue(m, `orgsync_runs_total{result="failure"}`) != 1 || metricValue(m, `orgsync_org_runs_total{org="default",result="failure"}`) != 1 {
		t.Errorf("the metrics do not count the failed run:\n%s", grepLines(m, "runs_total"))
	}
	if code := stopBinary(t, cmd); code != exitOK {
		t.Errorf("daemon exit %d\n%s", code, stderr.String())
	}
	if runs := runsOf(t, cfg); len(runs) != 1 || runs[0].Phase != "sources" {
		t.Errorf("runs.jsonl: %+v, want the failed run", runs)
	}

	report := filepath.Join(dir, "failed.html")
	r := runBinary(t, nil, "sync", "--config", cfg, "--report", report)
	if r.code != exitError || !strings.Contains(r.stdout, "report written to "+report) {
		t.Fatalf("sync with an unreadable source: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if html := string(data); !strings.Contains(html, `<td class="failure">failure</td>`) || !strings.Contains(html, "users.csv") {
		t.Errorf("the report does not say the run failed and why:\n%s", html)
	}
	if runs := runsOf(t, cfg); len(runs) != 2 || runs[1].Result != store.RunFailure {
		t.Errorf("runs.jsonl after the sync: %+v", runs)
	}
}

// TestUnrecordedChangesExitApart: changes applied that the state
// directory cannot record end the run with exit 3, and are notified.
func TestUnrecordedChangesExitApart(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	h := startHooks(t)
	cfg := configFor(t, dir, "csv", s.url, "maxRemovals: 50%", "maxRemovals: 50%\nstate:\n  dir: state\nnotify:\n  webhooks: [{url: {env: HOOK_URL}}]")
	if err := os.MkdirAll(filepath.Join(dir, "csv", "state", "history.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, []string{"HOOK_URL=" + h.url}, "sync", "--config", cfg)
	if r.code != exitUnrecorded || !strings.Contains(r.stderr, "could not record") {
		t.Fatalf("sync with a history that cannot be written: exit %d, want %d\n%s", r.code, exitUnrecorded, r.stderr)
	}
	if _, found := groupsOf(s, "dave@example.com"); !found {
		t.Error("the changes were not applied")
	}
	found := false
	for _, ev := range h.events() {
		found = found || (ev["event"] == "failure" && ev["phase"] == "record")
	}
	if !found {
		t.Errorf("no notification that the run was not recorded: %v", h.events())
	}
	// The run record, which could be written, does not call it a success.
	if runs := runsOf(t, cfg); len(runs) != 1 || runs[0].Result != store.RunFailure || runs[0].Phase != "record" || !strings.Contains(runs[0].Error, "the history of its changes could not be written") {
		t.Errorf("runs.jsonl after the unrecorded sync: %+v", runs)
	}
	r = runBinary(t, []string{"HOOK_URL=" + h.url}, "validate", "--config", cfg)
	if r.code != exitError || !strings.Contains(r.stdout, "problem: state.dir ") || !strings.Contains(r.stdout, "history.jsonl cannot be appended to") {
		t.Errorf("validate with a history that cannot be written: exit %d\n%s", r.code, r.stdout)
	}
}

// TestValidateReadsTheNotificationSecrets: an unset webhook variable is a
// problem validate finds, not a notification lost at the first run.
func TestValidateReadsTheNotificationSecrets(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	cfg := configFor(t, dir, "csv", "http://127.0.0.1:9", "maxRemovals: 50%", "maxRemovals: 50%\nnotify:\n  webhooks: [{url: {env: ORGSYNC_TEST_UNSET_HOOK}}]")
	r := runBinary(t, nil, "validate", "--config", cfg)
	if r.code != exitError || !strings.Contains(r.stdout, "problem: notify.webhooks[0].url: environment variable ORGSYNC_TEST_UNSET_HOOK is not set") {
		t.Errorf("validate with an unset webhook variable: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestNotificationNeverHoldsTheRun: a webhook that never answers costs a
// sync no more than notify.timeout, and the daemon's /healthz shows the
// run's end when its sync ended, not when its notifications gave up.
func TestNotificationNeverHoldsTheRun(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { silent.Close() })
	go func() { // accepts, reads, never answers
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	env := []string{"HOOK_URL=http://" + silent.Addr().String() + "/hook"}
	notifySection := "\nnotify:\n  onChanges: true\n  timeout: 2s\n  webhooks: [{url: {env: HOOK_URL}}]"
	cfg := configFor(t, dir, "csv", s.url, "maxRemovals: 50%", "maxRemovals: 50%"+notifySection)
	start := time.Now()
	r := runBinary(t, env, "sync", "--config", cfg)
	took := time.Since(start)
	if r.code != exitOK || took > 8*time.Second || !strings.Contains(r.stderr, "notification not sent") {
		t.Errorf("sync with a silent webhook: exit %d in %s, want 0 within the 2s timeout and the lost notification logged\n%s", r.code, took, r.stderr)
	}

	appendFile(t, cfg, fmt.Sprintf("schedule:\n  cron: \"@every 1h\"\n  allowFrequentSchedule: true\n  listen: %q\n", anyPort))
	rewrite(t, cfg, "timeout: 2s", "timeout: 8s")
	appendFile(t, filepath.Join(dir, "csv", "users.csv"), "Zed,Zero,zed@example.com,US,eng\n") // a change to notify
	started := time.Now()
	cmd, stderr := startBinary(t, "daemon", "--config", cfg, "--run-at-start", "--log-format", "json")
	addr := listening(t, stderr)
	var last *store.Run
	waitFor(t, "the run's end in /api/runs", 20*time.Second, func() bool { last = lastRunOf("http://" + addr); return last != nil })
	if end := last.End; !end.Before(started.Add(8 * time.Second)) {
		t.Errorf("/api/runs says the run ended %s after the daemon started: the 8s notification held it", end.Sub(started))
	}
	if _, found := groupsOf(s, "zed@example.com"); !found {
		t.Error("the daemon's run did not apply its change")
	}
	if code := stopBinary(t, cmd); code != exitOK {
		t.Errorf("daemon exit %d\n%s", code, stderr.String())
	}
}

// TestCommandLineThatDoesNotFitIsRecorded: a run whose command line does
// not fit the configuration (a users file that cannot be read) fails
// before it plans, and is recorded with the phase configuration.
func TestCommandLineThatDoesNotFitIsRecorded(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	cfg := configFor(t, dir, "csv", "http://127.0.0.1:9", "maxRemovals: 50%", "maxRemovals: 50%\nstate:\n  dir: state")
	r := runBinary(t, nil, "sync", "--config", cfg, "--users-file", filepath.Join(dir, "no-such-list.txt"))
	if r.code != exitError || !strings.Contains(r.stderr, "--users-file") {
		t.Fatalf("sync --users-file of a missing file: exit %d\n%s", r.code, r.stderr)
	}
	if runs := runsOf(t, cfg); len(runs) != 1 || runs[0].Phase != "configuration" || !strings.Contains(runs[0].Error, "--users-file") {
		t.Errorf("run records %+v, want the failure with the phase configuration", runs)
	}
}

// TestBrokenConfigurationIsRecordedAndNotified: a sync, apply or approve
// whose configuration does not load (here a misspelt policy value) is
// still a failed run: recorded in runs.jsonl with the phase
// "configuration", told to the notifications the file names, and in the
// report asked for, as long as no problem concerns state: or notify:. Where
// one does, the problems printed are all there is, and nothing is written.
func TestBrokenConfigurationIsRecordedAndNotified(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	h := startHooks(t)
	cfg := configFor(t, dir, "csv", s.url, "maxRemovals: 50%", "maxRemovals: 50%\nstate:\n  dir: state",
		"unmatchedUsers: remove-groups", "unmatchedUsers: sometimes")
	hook := h.urlRef(t)
	appendFile(t, cfg, "notify:\n  webhooks: [{url: "+hook+"}]\n")
	report := filepath.Join(dir, "failed.csv")
	r := runBinary(t, nil, "sync", "--config", cfg, "--report", report)
	if r.code != exitError || !strings.Contains(r.stderr, "policy.unmatchedUsers") {
		t.Fatalf("sync with a broken configuration: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	runs := runsOf(t, cfg)
	if len(runs) != 1 || runs[0].Result != store.RunFailure || runs[0].Phase != "configuration" || !strings.Contains(runs[0].Error, "sometimes") {
		t.Errorf("runs.jsonl: %+v, want the failed run in the configuration phase", runs)
	}
	if data, err := os.ReadFile(report); err != nil || !strings.Contains(string(data), "failure") {
		t.Errorf("the report: %v\n%s", err, data)
	}
	waitFor(t, "the failure notification", 10*time.Second, func() bool { return len(h.events()) > 0 })
	if ev := h.events()[0]; ev["event"] != "failure" || ev["phase"] != "configuration" {
		t.Errorf("notification %v, want a failure in the configuration", ev)
	}

	// plan is a dry run: nothing recorded. A broken notify: section: nothing trusted.
	if r := runBinary(t, nil, "plan", "--config", cfg); r.code != exitError {
		t.Errorf("plan: exit %d", r.code)
	}
	rewrite(t, cfg, hook, "{env: ORGSYNC_TEST_UNSET_HOOK}")
	if r := runBinary(t, nil, "sync", "--config", cfg); r.code != exitError {
		t.Errorf("sync: exit %d", r.code)
	}
	if runs := runsOf(t, cfg); len(runs) != 1 {
		t.Errorf("runs.jsonl after a plan and a sync whose notify: is broken: %d runs, want the first only", len(runs))
	}
}
