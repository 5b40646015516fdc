package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/changecontrol/notify"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/target/umsim"
)

// The phases a command is driven through, besides success: each a fault
// of the fixture (outcomeFixture.fault).
const (
	faultConfig    = run.PhaseConfig
	faultSecret    = run.PhaseSecret
	faultSources   = run.PhaseSources
	faultSignIn    = run.PhaseSignIn
	faultRead      = run.PhaseRead
	faultSavedPlan = run.PhaseSavedPlan
	faultApply     = run.PhaseApply
	faultRecord    = run.PhaseRecord
)

// outcomeDriver drives one recorded command line: prep readies the
// fixture (an approval to decide, a plan to apply) and returns the
// command's arguments; phases are those it can fail in; success is the
// notification its success sends.
type outcomeDriver struct {
	prep    func(t *testing.T, f *outcomeFixture) []string
	phases  []string
	success notify.Kind
	mode    string // its run records' mode
	daemon  bool   // run as the daemon, until its first run is recorded
}

// outcomeDrivers drive every command line the command table records
// (command.records): a line without a driver fails the test.
var outcomeDrivers = map[string]outcomeDriver{
	"sync": {prep: func(*testing.T, *outcomeFixture) []string { return []string{"sync"} },
		phases:  []string{faultConfig, faultSecret, faultSources, faultSignIn, faultRead, faultApply, faultRecord},
		success: notify.Changes, mode: "sync"},
	"daemon": {prep: func(*testing.T, *outcomeFixture) []string { return []string{"daemon", "--run-at-start"} },
		phases:  []string{faultConfig, faultSecret, faultSources, faultSignIn, faultRead, faultApply, faultRecord},
		success: notify.Changes, mode: "sync", daemon: true},
	"apply": {prep: func(t *testing.T, f *outcomeFixture) []string {
		plan := filepath.Join(f.dir, "plan.json")
		f.mustRun(t, exitOK, "plan", "--out", plan)
		return []string{"apply", plan}
	}, phases: []string{faultConfig, faultSecret, faultSources, faultSignIn, faultRead, faultSavedPlan, faultApply, faultRecord},
		success: notify.Changes, mode: "apply"},
	"approve": {prep: func(t *testing.T, f *outcomeFixture) []string { return []string{"approve", f.hold(t), "--yes"} },
		phases:  []string{faultConfig, faultSecret, faultSources, faultSignIn, faultRead, faultApply, faultRecord},
		success: notify.Approved, mode: "approve"},
	"reject": {prep: func(t *testing.T, f *outcomeFixture) []string { return []string{"reject", f.hold(t)} },
		phases:  []string{faultConfig, faultRecord},
		success: notify.Rejected, mode: "reject"},
	"invites resend": {prep: func(*testing.T, *outcomeFixture) []string { return []string{"invites", "resend", invited} },
		phases:  []string{faultConfig, faultSecret, faultSignIn, faultApply, faultRecord},
		success: notify.Changes, mode: "resend-invite"},
	"invites revoke": {prep: func(*testing.T, *outcomeFixture) []string { return []string{"invites", "revoke", invited} },
		phases:  []string{faultConfig, faultSecret, faultSignIn, faultApply, faultRecord},
		success: notify.Changes, mode: "revoke-invite"},
}

// invited has a pending invite in every fixture's organization.
const invited = "pending@gmail.com"

// TestEveryCommandEndsInOneOutcome: every command line of the command
// table that can change the service or an approval, driven through
// success and through a failure in each phase it has, leaves exactly one
// run record (its mode, result and phase) and one notification (the
// success's kind, or a failure with the phase), and the report asked
// for with the same result; a failure exits 1, a change the state
// directory could not record 3.
func TestEveryCommandEndsInOneOutcome(t *testing.T) {
	t.Parallel()
	for _, line := range recordedLines() {
		d, ok := outcomeDrivers[line]
		if !ok {
			t.Errorf("the command table records %q, which this test does not drive: add it to outcomeDrivers", line)
			continue
		}
		for _, phase := range append([]string{""}, d.phases...) {
			name := cmpOr(phase, "success")
			t.Run(line+"/"+name, func(t *testing.T) {
				t.Parallel()
				notGolden(t)
				f := newOutcomeFixture(t, line == "approve" || line == "reject")
				args := d.prep(t, f)
				runs0, events0 := len(f.runs(t)), len(f.hooks.events())
				args = append(args, f.fault(t, phase)...)
				code, out := f.drive(t, d, args)
				runs := f.runs(t)[runs0:]
				if len(runs) != 1 {
					t.Fatalf("%s: %d run records, want 1: %+v\n%s", name, len(runs), runs, out)
				}
				rec := runs[0]
				wantResult, wantCode := store.RunSuccess, exitOK
				switch phase {
				case "":
				case faultRecord:
					wantResult, wantCode = store.RunFailure, exitUnrecorded
				default:
					wantResult, wantCode = store.RunFailure, exitError
				}
				if rec.Mode != d.mode || rec.Result != wantResult || rec.Phase != phase {
					t.Errorf("%s: the run record is mode %q, result %q, phase %q (%s); want %q, %q, %q", name, rec.Mode, rec.Result, rec.Phase, rec.Error,
						d.mode, wantResult, phase)
				}
				if !d.daemon && code != wantCode {
					t.Errorf("%s: exit %d, want %d\n%s", name, code, wantCode, out)
				}
				waitFor(t, "the notification", 10*time.Second, func() bool { return len(f.hooks.events()) > events0 })
				time.Sleep(100 * time.Millisecond) // a second one would be here by now
				events := f.hooks.events()[events0:]
				want := string(d.success)
				if phase != "" {
					want = string(notify.Failure)
				}
				if len(events) != 1 || events[0]["event"] != want || (phase != "" && events[0]["phase"] != phase) {
					t.Errorf("%s: notifications %v, want one %s (phase %q)", name, events, want, phase)
				}
				if !d.daemon {
					f.checkReport(t, rec)
				}
			})
		}
	}
}

// recordedLines are the command lines the command table records.
func recordedLines() []string {
	var out []string
	for _, c := range commands() {
		out = append(out, slices.Collect(maps.Keys(c.records))...)
	}
	slices.Sort(out)
	return out
}

func cmpOr(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

// outcomeFixture is the CSV example with a state directory, a webhook,
// every change notified, a pending invite and a simulator that refuses
// every request that would change the organization while refuse is set.
type outcomeFixture struct {
	dir, cfg, url string
	hooks         *hooks
	refuse        atomic.Bool
	env           []string
}

// newOutcomeFixture makes one; held sets a removal limit its plan
// exceeds (2 removals, 1 allowed), so that a sync holds an approval.
func newOutcomeFixture(t *testing.T, held bool) *outcomeFixture {
	t.Helper()
	f := &outcomeFixture{dir: exampleDir(t), hooks: startHooks(t)}
	appendFile(t, filepath.Join(f.dir, "sim", "org.yaml"), fmt.Sprintf("invites:\n  - {email: %s, lastSentDTS: %d, groups: [Engineering]}\n",
		invited, time.Now().Add(-time.Hour).UnixMilli()))
	st, err := umsim.LoadState(filepath.Join(f.dir, "sim", "org.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := umsim.New(st, umsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.url = serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f.refuse.Load() && r.Method != http.MethodGet && !strings.HasPrefix(r.URL.Path, "/ims") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"result":"error.command.refused","message":"refused by the test"}`)
			return
		}
		srv.ServeHTTP(w, r)
	}))
	limit := "maxRemovals: 50%"
	if held {
		limit = "maxRemovals: 1"
	}
	f.cfg = configFor(t, f.dir, "csv", f.url, "target:\n", "target:\n  retries: {max: 0}\n", "maxRemovals: 50%",
		limit+"\nstate:\n  dir: state\nnotify:\n  onChanges: true\n  webhooks: [{url: {env: HOOK_URL}}]\n")
	f.env = []string{"HOOK_URL=" + f.hooks.url}
	return f
}

// mustRun runs orgsync with the fixture's configuration and environment,
// which must exit code.
func (f *outcomeFixture) mustRun(t *testing.T, code int, args ...string) result {
	t.Helper()
	r := runBinary(t, f.env, append(args, "--config", f.cfg)...)
	if r.code != code {
		t.Fatalf("orgsync %s: exit %d, want %d\n%s\n%s", strings.Join(args, " "), r.code, code, r.stdout, r.stderr)
	}
	return r
}

// hold syncs over the removal limit and returns the approval held.
func (f *outcomeFixture) hold(t *testing.T) string {
	t.Helper()
	r := f.mustRun(t, exitOK, "sync")
	m := heldID.FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("the sync held nothing:\n%s", r.stdout)
	}
	return m[1]
}

// fault breaks the fixture so that a command fails in phase (nothing for
// ""), and returns the arguments the command needs for it.
func (f *outcomeFixture) fault(t *testing.T, phase string) []string {
	t.Helper()
	switch phase {
	case "":
	case faultConfig:
		rewrite(t, f.cfg, "unmatchedUsers: remove-groups", "unmatchedUsers: sometimes")
	case faultSecret:
		rewrite(t, f.cfg, "clientSecret: {file: ../sim/demo-client-secret}", "clientSecret: {env: ORGSYNC_TEST_UNSET_SECRET}")
	case faultSources:
		if err := os.Rename(filepath.Join(f.dir, "csv", "users.csv"), filepath.Join(f.dir, "csv", "users.csv.moved")); err != nil {
			t.Fatal(err)
		}
	case faultSignIn:
		rewrite(t, f.cfg, "clientId: orgsync-demo", "clientId: someone-else")
	case faultRead: // signed in, then the service's address answers nothing
		rewrite(t, f.cfg, "baseURL: "+f.url, "baseURL: "+deadURL(t)+"\n  authBaseURL: "+f.url)
	case faultSavedPlan:
		return []string{"--max-age", "1ns"}
	case faultApply:
		f.refuse.Store(true)
	case faultRecord:
		history := filepath.Join(f.dir, "csv", "state", "history.jsonl")
		if err := os.RemoveAll(history); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(history, 0o700); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("no fault for phase %q", phase)
	}
	return nil
}

// drive runs the command (args) with the fixture's configuration and a
// report, and returns its exit code and output.
func (f *outcomeFixture) drive(t *testing.T, d outcomeDriver, args []string) (int, string) {
	t.Helper()
	if !d.daemon {
		r := runBinary(t, f.env, append(args, "--config", f.cfg, "--report", f.report())...)
		return r.code, r.stdout + r.stderr
	}
	appendFile(t, f.cfg, fmt.Sprintf("schedule:\n  cron: \"@every 1h\"\n  allowFrequentSchedule: true\n  listen: %q\n", anyPort))
	cmd := exec.Command(binary, append(args, "--config", f.cfg, "--log-format", "json")...)
	cmd.Env = append(os.Environ(), f.env...)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
	waitFor(t, "the daemon's first run recorded, or its end", 30*time.Second, func() bool {
		select {
		case <-done:
			return true
		default:
			return len(f.runs(t)) > 0
		}
	})
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the daemon did not stop within 30 s of SIGTERM")
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// report is where the command writes its report.
func (f *outcomeFixture) report() string { return filepath.Join(f.dir, "report.csv") }

// runs are the fixture's run records.
func (f *outcomeFixture) runs(t *testing.T) []store.Run {
	t.Helper()
	return runsOf(t, f.cfg)
}

// checkReport checks that the report holds rec's summary row.
func (f *outcomeFixture) checkReport(t *testing.T, rec store.Run) {
	t.Helper()
	data, err := os.ReadFile(f.report())
	if err != nil {
		t.Errorf("no report: %v", err)
		return
	}
	rows, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		if row[0] == "summary" && row[1] == rec.ID && row[5] == rec.Mode && row[7] == rec.Result {
			return
		}
	}
	t.Errorf("the report lacks the run's summary (%s, %s, %s):\n%s", rec.ID, rec.Mode, rec.Result, data)
}

// TestRefusedApplyIsRecordedAndNamesTheApproval: a plan saved for review,
// then a sync that holds its removals, then apply: refused, and the
// refusal names the pending approval that holds the saved plan's
// removals and what decides it; the refusal is a run record (mode apply,
// phase saved-plan), a failure notification and the report asked for.
// The same for a plan too old for --max-age.
func TestRefusedApplyIsRecordedAndNamesTheApproval(t *testing.T) {
	t.Parallel()
	notGolden(t)
	f := newOutcomeFixture(t, false)
	plan := filepath.Join(f.dir, "plan.json")
	f.mustRun(t, exitOK, "plan", "--out", plan)
	id := heldID.FindStringSubmatch(f.mustRun(t, exitOK, "sync", "--max-removals", "1").stdout)
	if id == nil {
		t.Fatal("the sync with --max-removals 1 held nothing")
	}
	for _, tc := range []struct {
		name  string
		args  []string
		wants []string
	}{
		{"held since", nil, []string{"pending approval " + id[1], "holds 2 changes of the saved plan", "orgsync approve " + id[1]}},
		{"too old", []string{"--max-age", "1ns"}, []string{"more than --max-age 1ns"}},
	} {
		runs0, events0 := len(f.runs(t)), len(f.hooks.events())
		report := filepath.Join(f.dir, strings.ReplaceAll(tc.name, " ", "-")+".csv")
		r := f.mustRun(t, exitError, append([]string{"apply", plan, "--report", report}, tc.args...)...)
		for _, want := range tc.wants {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%s: the refusal lacks %q:\n%s", tc.name, want, r.stderr)
			}
		}
		runs := f.runs(t)[runs0:]
		if len(runs) != 1 || runs[0].Mode != "apply" || runs[0].Result != store.RunFailure || runs[0].Phase != run.PhaseSavedPlan {
			t.Errorf("%s: run records %+v, want the refused apply", tc.name, runs)
		}
		waitFor(t, "the notification", 10*time.Second, func() bool { return len(f.hooks.events()) > events0 })
		if ev := f.hooks.events()[events0]; ev["event"] != "failure" || ev["phase"] != run.PhaseSavedPlan {
			t.Errorf("%s: notification %v", tc.name, ev)
		}
		if data, err := os.ReadFile(report); err != nil || !strings.Contains(string(data), "refused") {
			t.Errorf("%s: the report: %v\n%s", tc.name, err, data)
		}
	}
}
