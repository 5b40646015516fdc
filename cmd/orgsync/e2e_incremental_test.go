package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/target/umapi"
	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
	"github.com/orgsync/orgsync/target/umwire"
)

// incrementalConfig is the CSV example against url with a state
// directory (csv/state) and incremental runs on, after the replacements.
func incrementalConfig(t *testing.T, dir, url string, replace ...string) string {
	t.Helper()
	return configFor(t, dir, "csv", url, append([]string{"safety:\n", "state: {dir: state}\nincremental: {enabled: true}\nsafety:\n"}, replace...)...)
}

// syncedOnce serves the CSV example's organization and syncs it once
// with incremental runs on: its snapshot is made. The test's plans are
// not kept as golden ones: they name times.
func syncedOnce(t *testing.T) (dir string, s *sim, cfg string) {
	t.Helper()
	notGolden(t)
	dir = exampleDir(t)
	s = startSim(t, dir, umsim.Options{})
	cfg = incrementalConfig(t, dir, s.url)
	mustRun(t, exitOK, "sync", "--config", cfg)
	return dir, s, cfg
}

// listingPages counts the user listing pages the simulator served.
func listingPages(s *sim) int {
	st := s.Stats()
	return st.Count(gate.EndpointUsers, 200) + st.Count(gate.EndpointGroupUsers, 200) + st.Count(gate.EndpointGroupUsers, 404)
}

// lastRun is the last run record of the state directory of the CSV
// example.
func lastRun(t *testing.T, dir string) store.Run {
	t.Helper()
	d, err := store.Open(filepath.Join(dir, "csv", "state"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	runs, err := d.Runs(1)
	if err != nil || len(runs) != 1 {
		t.Fatalf("run records: %v %v", runs, err)
	}
	return runs[0]
}

// mustRun runs orgsync and fails unless it exits with code.
func mustRun(t *testing.T, code int, args ...string) result {
	t.Helper()
	r := runBinary(t, nil, args...)
	if r.code != code {
		t.Fatalf("orgsync %s: exit %d, want %d\n%s\n%s", strings.Join(args, " "), r.code, code, r.stdout, r.stderr)
	}
	return r
}

// writeUsers replaces the CSV example's users.
func writeUsers(t *testing.T, dir, csv string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "csv", "users.csv"), []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
}

// exampleUsers is the CSV example's users.csv, with frank in design.
const exampleUsers = `firstname,lastname,email,country,groups
Alice,Anders,alice@example.com,US,eng
Bob,Builder,bob@example.com,DE,eng
Carol,Clark,carol@example.com,GB,"design,marketing"
Dave,Doe,dave@example.com,US,"eng,design"
Erin,Evans,erin@example.com,FR,marketing
Frank,Fuller,frank@example.com,CA,design
`

// TestIncrementalRunsPlanFromTheSnapshot: the first run reads the whole
// organization and keeps its snapshot; the next ones plan from it and
// read no listing page, until --full; plan, the run records and the
// summary say which kind of run each was, and why.
func TestIncrementalRunsPlanFromTheSnapshot(t *testing.T) {
	t.Parallel()
	notGolden(t) // the reasons name times
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := incrementalConfig(t, dir, s.url)

	r := mustRun(t, exitChanges, "plan", "--config", cfg, "--detailed-exitcode")
	if !strings.HasPrefix(r.stdout, "# full read: first run with incremental runs: no snapshot of this organization yet\n") {
		t.Errorf("first plan:\n%s", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "csv", "state", "snapshots")); !os.IsNotExist(err) {
		t.Errorf("plan wrote in the state directory: %v", err)
	}
	mustRun(t, exitOK, "sync", "--config", cfg)
	if rec := lastRun(t, dir); rec.Read != "full" || rec.ReadReason != "first run with incremental runs: no snapshot of this organization yet" {
		t.Errorf("first sync's record: read %q (%q)", rec.Read, rec.ReadReason)
	}
	if _, err := os.Stat(filepath.Join(dir, "csv", "state", "snapshots", "org-default.snapshot")); err != nil {
		t.Fatalf("no snapshot after the first sync: %v", err)
	}

	writeUsers(t, dir, exampleUsers)
	pages := listingPages(s)
	r = mustRun(t, exitChanges, "plan", "--config", cfg, "--detailed-exitcode")
	if !justRead.MatchString(r.stdout) || !strings.Contains(r.stdout, "~ update frank@example.com") {
		t.Errorf("plan after a change in the source:\n%s", r.stdout)
	}
	r = mustRun(t, exitOK, "plan", "--config", cfg, "--output", "json")
	if !justReadJSON.MatchString(r.stdout) {
		t.Errorf("the JSON plan does not say how the organization is read:\n%s", r.stdout)
	}
	r = mustRun(t, exitOK, "sync", "--config", cfg, "--log-format", "json")
	if g, _ := groupsOf(s, "frank@example.com"); !hasFold(g, "Design") {
		t.Errorf("frank after the incremental sync: %v", g)
	}
	if n := listingPages(s) - pages; n != 0 {
		t.Errorf("the incremental plan and sync read %d listing pages, want none", n)
	}
	if rec := lastRun(t, dir); rec.Read != "incremental" || !strings.HasPrefix(rec.ReadReason, "last full read") {
		t.Errorf("incremental sync's record: read %q (%q)", rec.Read, rec.ReadReason)
	}
	if !strings.Contains(r.stderr, `"read":"incremental"`) || !strings.Contains(r.stderr, `"msg":"snapshot recorded"`) {
		t.Errorf("the summary does not say the run was incremental, or the snapshot was not recorded:\n%s", r.stderr)
	}

	r = mustRun(t, exitOK, "plan", "--config", cfg, "--detailed-exitcode", "--full")
	if !strings.HasPrefix(r.stdout, "# full read: --full asks for it\n") || listingPages(s) == pages {
		t.Errorf("plan --full read %d listing pages:\n%s", listingPages(s)-pages, r.stdout)
	}
}

// orgClient is a client of the simulated organization of configuration
// cfg: someone else changing it behind orgsync's back.
func orgClient(t *testing.T, cfg string) *umapi.Client {
	t.Helper()
	c, err := config.Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := c.Primary().ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	client, err := umapi.New(cc)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// behind sends entries to the organization, as someone other than
// orgsync would.
func behind(t *testing.T, c *umapi.Client, entries ...umwire.Entry) {
	t.Helper()
	resp, err := c.Action(context.Background(), entries, umapi.ActionOptions{})
	if err != nil || len(resp.Errors) > 0 {
		t.Fatalf("change behind orgsync's back: %v %+v", err, resp)
	}
}

// simUsers are the organization's users, one a line, sorted.
func simUsers(s *sim) []string {
	var out []string
	for _, u := range s.Snapshot().Users {
		groups := slices.Clone(u.Groups)
		slices.Sort(groups)
		out = append(out, fmt.Sprintf("%s %s %s %v", u.Email, u.FirstName, u.LastName, groups))
	}
	slices.Sort(out)
	return out
}

// TestDriftBehindOrgsyncsBack: someone removes a user, adds a managed
// membership and changes a name behind orgsync's back. The incremental
// run leaves the organization as it is (its snapshot does not know); the
// next full run corrects exactly those three.
func TestDriftBehindOrgsyncsBack(t *testing.T) {
	t.Parallel()
	_, s, cfg := syncedOnce(t)
	synced := simUsers(s)

	changed := "Changed"
	behind(t, orgClient(t, cfg),
		umwire.Entry{User: "alice@example.com", Do: []umwire.Step{{RemoveFromOrg: &umwire.RemoveFromOrg{}}}},
		umwire.Entry{User: "bob@example.com", Do: []umwire.Step{{Add: &umwire.Membership{Group: []string{"Marketing"}}}}},
		umwire.Entry{User: "carol@example.com", Do: []umwire.Step{{Update: &umwire.Update{LastName: &changed}}}})
	drifted := simUsers(s)

	r := mustRun(t, exitOK, "sync", "--config", cfg)
	if !strings.HasPrefix(r.stdout, "# incremental run: ") {
		t.Errorf("the second sync is not incremental:\n%s", r.stdout)
	}
	if got := simUsers(s); !slices.Equal(got, drifted) {
		t.Errorf("the incremental run changed the organization:\n got %q\nwant %q", got, drifted)
	}

	r = mustRun(t, exitOK, "sync", "--config", cfg, "--full")
	want := []string{"+ create alice@example.com", "~ update bob@example.com", "~ update carol@example.com"}
	var planned []string
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(line, "+ ") || strings.HasPrefix(line, "~ ") || strings.HasPrefix(line, "- ") {
			planned = append(planned, line)
		}
	}
	if len(planned) != len(want) {
		t.Fatalf("the full run planned %q, want the three drifts corrected:\n%s", planned, r.stdout)
	}
	for i, w := range want {
		if !strings.HasPrefix(planned[i], w) {
			t.Errorf("change %d: %q, want %s…", i, planned[i], w)
		}
	}
	if got := simUsers(s); !slices.Equal(got, synced) {
		t.Errorf("after the full run:\n got %q\nwant %q (as the first sync left it)", got, synced)
	}
	mustRun(t, exitOK, "plan", "--config", cfg, "--detailed-exitcode", "--full")
}

// TestAnswerContradictingTheSnapshotSwitchesToAFullRead: the source
// changes a user someone removed behind orgsync's back: the incremental
// run's update is answered "no such user", and the run reads the whole
// organization, plans again and creates the user, saying why.
func TestAnswerContradictingTheSnapshotSwitchesToAFullRead(t *testing.T) {
	t.Parallel()
	dir, s, cfg := syncedOnce(t)
	behind(t, orgClient(t, cfg), umwire.Entry{User: "bob@example.com", Do: []umwire.Step{{RemoveFromOrg: &umwire.RemoveFromOrg{}}}})
	writeUsers(t, dir, strings.Replace(exampleUsers, "Bob,Builder", "Bob,Baker", 1))

	report := filepath.Join(t.TempDir(), "report.html")
	r := mustRun(t, exitOK, "sync", "--config", cfg, "--log-format", "json", "--report", report)
	if !strings.Contains(r.stderr, "an answer of the service contradicts the snapshot") || !strings.Contains(r.stderr, "error.user.nonexistent for bob@example.com") {
		t.Errorf("the switch is not explained:\n%s", r.stderr)
	}
	// The plan printed first is the snapshot's (bob updated); what was sent
	// (bob created) follows the result.
	if _, sent, ok := strings.Cut(r.stdout, "is not all that was sent"); !ok || !strings.Contains(sent, "What it sent:\n") || !strings.Contains(sent, "\n+ create bob@example.com") {
		t.Errorf("the output does not show what the switched run sent:\n%s", r.stdout)
	}
	if html, err := os.ReadFile(report); err != nil || !strings.Contains(string(html), "full: switched to a full read: the service answered error.user.nonexistent") {
		t.Errorf("the report does not say how the organization was read: %v\n%s", err, html)
	}
	found := false
	for _, u := range s.Snapshot().Users {
		found = found || u.Email == "bob@example.com" && u.LastName == "Baker"
	}
	if !found {
		t.Error("bob was not created again")
	}
	if rec := lastRun(t, dir); rec.Read != "full" || !strings.HasPrefix(rec.ReadReason, "switched to a full read: the service answered error.user.nonexistent for bob@example.com") {
		t.Errorf("record: read %q (%q)", rec.Read, rec.ReadReason)
	}
	r = mustRun(t, exitOK, "plan", "--config", cfg, "--detailed-exitcode")
	if !strings.HasPrefix(r.stdout, "# incremental run: ") {
		t.Errorf("the run after the switch does not plan from the snapshot:\n%s", r.stdout)
	}
	mustRun(t, exitOK, "plan", "--config", cfg, "--detailed-exitcode", "--full")
}

// TestSyncKilledWhileSendingMakesTheNextRunFull: a sync killed (SIGKILL)
// after its first requests, before it could record them in the snapshot:
// the next run reads the whole organization, says why, and converges.
func TestSyncKilledWhileSendingMakesTheNextRunFull(t *testing.T) {
	t.Parallel()
	dir, s, cfg := syncedOnce(t)
	var csv strings.Builder
	csv.WriteString(exampleUsers)
	for i := range 200 {
		fmt.Fprintf(&csv, "User,Number%d,user%03d@example.com,US,eng\n", i, i)
	}
	writeUsers(t, dir, csv.String())
	s.SetFaults(gate.Faults{Latency: 40 * time.Millisecond})
	cmd, _ := startBinary(t, "sync", "--config", cfg)
	waitFor(t, "a few action requests", 30*time.Second, func() bool { return s.Stats().Requests[gate.EndpointAction][200] >= 3 })
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	s.SetFaults(gate.Faults{})
	if sent := s.Stats().Requests[gate.EndpointAction][200]; sent >= 21 {
		t.Fatalf("the sync was not interrupted: %d action requests", sent)
	}
	r := mustRun(t, exitChanges, "plan", "--config", cfg, "--detailed-exitcode")
	want := fmt.Sprintf("# full read: a run stopped between sending changes and recording them in the snapshot (run of pid %d, since ", cmd.Process.Pid)
	if !strings.HasPrefix(r.stdout, want) {
		t.Errorf("plan after the kill:\n%.300s\nwant it to start %q", r.stdout, want)
	}
	mustRun(t, exitOK, "sync", "--config", cfg)
	r = mustRun(t, exitOK, "plan", "--config", cfg, "--detailed-exitcode", "--full")
	if !strings.HasPrefix(r.stdout, "# full read: --full") {
		t.Errorf("final plan:\n%s", r.stdout)
	}
	mustRun(t, exitOK, "plan", "--config", cfg, "--detailed-exitcode")
}

// TestDamagedSnapshotIsAWarning: a snapshot that cannot be read makes the
// run read fully, with a warning, never fail; the sync writes a new one.
func TestDamagedSnapshotIsAWarning(t *testing.T) {
	t.Parallel()
	dir, _, cfg := syncedOnce(t)
	path := filepath.Join(dir, "csv", "state", "snapshots", "org-default.snapshot")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, exitOK, "sync", "--config", cfg, "--log-format", "json")
	var warned bool
	for _, line := range strings.Split(r.stderr, "\n") {
		var l struct{ Level, Msg string }
		if json.Unmarshal([]byte(line), &l) == nil && l.Level == "warn" && strings.HasPrefix(l.Msg, "full read: the snapshot cannot be read (damaged") {
			warned = true
		}
	}
	if !warned || !strings.HasPrefix(r.stdout, "# full read: the snapshot cannot be read (damaged: its checksum does not match its content); the full read makes a new one\n") {
		t.Errorf("no warning of the damaged snapshot:\n%s\n%s", r.stdout, r.stderr)
	}
	if r := mustRun(t, exitOK, "plan", "--config", cfg, "--detailed-exitcode"); !strings.HasPrefix(r.stdout, "# incremental run: ") {
		t.Errorf("the sync did not write a new snapshot:\n%s", r.stdout)
	}
}

// TestDaemonRunsIncrementally: the daemon's first run reads the whole
// organization, the next ones plan from the snapshot; its metrics and
// status page say so.
func TestDaemonRunsIncrementally(t *testing.T) {
	t.Parallel()
	notGolden(t)
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := incrementalConfig(t, dir, s.url)
	appendFile(t, cfg, fmt.Sprintf("schedule:\n  cron: \"@every 1s\"\n  allowFrequentSchedule: true\n  listen: %q\n", anyPort))
	cmd, stderr := startBinary(t, "daemon", "--config", cfg, "--log-format", "json")
	base := "http://" + listening(t, stderr)
	waitFor(t, "an incremental run", 20*time.Second, func() bool {
		_, m := get(base + "/metrics")
		return metricValue(m, `orgsync_reads_total{kind="incremental"}`) >= 2
	})
	_, m := get(base + "/metrics")
	if n := metricValue(m, `orgsync_org_reads_total{kind="full",org="default"}`); n != 1 {
		t.Errorf("full reads: %v, want 1 (the first run)", n)
	}
	if _, page := get(base + "/"); !strings.Contains(page, `">incremental</td>`) || !strings.Contains(page, `<td title="first run with incremental runs: no snapshot of this organization yet">full</td>`) {
		t.Errorf("the status page does not show the kind of each run:\n%s", page)
	}
	if code := stopBinary(t, cmd); code != exitOK {
		t.Errorf("daemon exit %d\n%s", code, stderr.String())
	}
}

// TestIncrementalRunsKeepTheSafetyLimit: an incremental run over
// maxRemovals holds the removals as a full run does (nothing destructive
// is sent), a later incremental run does not send them either, approve
// applies them once, and the snapshot records it: the next incremental
// plan has nothing left to do.
func TestIncrementalRunsKeepTheSafetyLimit(t *testing.T) {
	t.Parallel()
	notGolden(t)
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := incrementalConfig(t, dir, s.url)
	mustRun(t, exitOK, "sync", "--config", cfg)
	rewrite(t, cfg, "maxRemovals: 50%", "maxRemovals: 1\n  onLimit: hold")
	// alice and bob leave the CSV: each loses the managed groups
	// (unmatchedUsers: remove-groups), two removals over a limit of one.
	writeUsers(t, dir, strings.Join(slices.Delete(strings.Split(exampleUsers, "\n"), 1, 3), "\n"))
	var id string
	for run := range 2 {
		r := mustRun(t, exitOK, "sync", "--config", cfg)
		m := heldID.FindStringSubmatch(r.stdout)
		if !strings.HasPrefix(r.stdout, "# incremental run: ") || m == nil || (id != "" && m[1] != id) {
			t.Fatalf("incremental sync %d over the limit: want it held as approval %q\n%s", run+1, id, r.stdout)
		}
		id = m[1]
		for _, u := range []string{"alice@example.com", "bob@example.com"} {
			if g, _ := groupsOf(s, u); !hasFold(g, "Engineering") {
				t.Fatalf("a held removal was sent by incremental sync %d: %s has %v", run+1, u, g)
			}
		}
	}
	mustRun(t, exitOK, "approve", id, "--config", cfg, "--yes")
	for _, u := range []string{"alice@example.com", "bob@example.com"} {
		if g, _ := groupsOf(s, u); hasFold(g, "Engineering") {
			t.Errorf("approve did not apply the held removal: %s has %v", u, g)
		}
	}
	if r := mustRun(t, exitOK, "plan", "--config", cfg, "--detailed-exitcode"); !strings.HasPrefix(r.stdout, "# incremental run: ") {
		t.Errorf("the plan after approve is not incremental:\n%s", r.stdout)
	}
}

// justRead and justReadJSON are how a plan says, in text and in JSON,
// that it was made from a snapshot read seconds ago (never "0m ago").
var (
	justRead     = regexp.MustCompile(`^# incremental run: last full read \d{1,2}s ago, next in 24h\n`)
	justReadJSON = regexp.MustCompile(`"read": \{\n    "kind": "incremental",\n    "reason": "last full read \d{1,2}s ago, next in 24h"`)
)
