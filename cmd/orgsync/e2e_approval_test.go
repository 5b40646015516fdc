package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/orgsync/orgsync/internal/changecontrol/notify"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/target/umsim"
)

// heldConfig is the CSV example with a removal limit of 1 (its plan
// removes more) and a state directory; extra adds to the safety section.
func heldConfig(t *testing.T, dir, url, extra string) string {
	t.Helper()
	return configFor(t, dir, "csv", url, "maxRemovals: 50%", "maxRemovals: 1"+extra+"\nstate:\n  dir: state")
}

var heldID = regexp.MustCompile(`held for approval: ([0-9a-f]{8})`)

// syncHeld syncs with cfg, which must succeed holding one approval, and
// returns its id.
func syncHeld(t *testing.T, cfg string) string {
	t.Helper()
	r := runBinary(t, nil, "sync", "--config", cfg)
	m := heldID.FindAllStringSubmatch(r.stdout, -1)
	if r.code != exitOK || len(m) != 1 {
		t.Fatalf("sync over the removal limit with hold: exit %d, %d approvals, want 0 and one\n%s\n%s", r.code, len(m), r.stdout, r.stderr)
	}
	return m[0][1]
}

// TestSafetyLimitHoldsForApproval: over maxRemovals the safe changes are
// applied and the removals held as a pending approval; a later run does
// not hold them twice; approve re-plans, shows and applies them once; the
// history tells who lost which group, when and why.
func TestSafetyLimitHoldsForApproval(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := heldConfig(t, dir, s.url, "")
	id := syncHeld(t, cfg)
	if g, found := groupsOf(s, "dave@example.com"); !found || !hasFold(g, "Engineering") {
		t.Errorf("the safe changes were not applied: dave %v (found %v)", g, found)
	}
	if g, _ := groupsOf(s, "mallory@example.com"); !hasFold(g, "Marketing") {
		t.Fatalf("a held removal was applied: mallory has %v", g)
	}
	if again := syncHeld(t, cfg); again != id {
		t.Errorf("the second run lists approval %s, want the pending %s only (nothing new to hold)", again, id)
	}
	r := runBinary(t, nil, "approve", "--config", cfg)
	if r.code != exitOK || strings.Count(r.stdout, "\n") != 2 || !strings.Contains(r.stdout, id+" ") || !strings.Contains(r.stdout, ": 2 changes held") ||
		!strings.Contains(r.stdout, "now: 2 changes the sources still ask for") {
		t.Fatalf("approve lists: exit %d, want the one approval %s holding 2 changes\n%s%s", r.code, id, r.stdout, r.stderr)
	}
	// Not on a terminal, approve needs --yes; --dry-run shows and applies nothing.
	if r = runBinary(t, nil, "approve", id, "--config", cfg); r.code != exitError || !strings.Contains(r.stderr, "give --yes") {
		t.Errorf("approve without a terminal or --yes: exit %d\n%s", r.code, r.stderr)
	}
	r = runBinary(t, nil, "approve", id, "--config", cfg, "--dry-run")
	if r.code != exitOK || !strings.Contains(r.stdout, "approving applies 2 changes:") || !strings.Contains(r.stdout, "dry run: nothing applied") {
		t.Errorf("approve --dry-run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if g, _ := groupsOf(s, "mallory@example.com"); !hasFold(g, "Marketing") {
		t.Fatalf("approve --dry-run applied the removal: mallory has %v", g)
	}
	r = runBinary(t, nil, "approve", id, "--config", cfg, "--yes", "--by", "carol.ops")
	if r.code != exitOK || !strings.Contains(r.stdout, "mallory@example.com") || !strings.Contains(r.stdout, "applied:") {
		t.Fatalf("approve %s: exit %d\n%s\n%s", id, r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "nothing destructive applied") {
		t.Errorf("approve says nothing destructive is applied, and applies removals:\n%s", r.stderr)
	}
	if g, _ := groupsOf(s, "mallory@example.com"); hasFold(g, "Marketing") {
		t.Errorf("approved removal not applied: mallory has %v", g)
	}
	if r = runBinary(t, nil, "approve", id, "--config", cfg, "--yes"); r.code != exitError || !strings.Contains(r.stderr, "approved already, by carol.ops via orgsync approve at ") {
		t.Errorf("a second approve: exit %d, want 1 saying it is approved already, by whom and when\n%s", r.code, r.stderr)
	}
	if r = runBinary(t, nil, "plan", "--config", cfg, "--detailed-exitcode"); r.code != exitOK {
		t.Errorf("plan after the approval: exit %d, want in sync\n%s", r.code, r.stdout)
	}

	r = runBinary(t, nil, "history", "--config", cfg, "--user", "MALLORY@example.com", "--output", "json", "--since", "1h")
	var entries []store.Entry
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var e store.Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("history line %q: %v\n%s", line, err, r.stderr)
		}
		entries = append(entries, e)
	}
	if len(entries) != 1 || entries[0].Approval != id || entries[0].Result != store.ResultApplied || entries[0].DecidedBy != "carol.ops via orgsync approve" ||
		!strings.Contains(strings.Join(entries[0].Steps, ","), "remove Marketing") || entries[0].Reason == "" {
		t.Errorf("mallory's history: %+v, want the one removal of Marketing carol.ops approved, with why", entries)
	}
	r = runBinary(t, nil, "history", "--config", cfg)
	if !strings.Contains(r.stdout, "dave@example.com") || !strings.Contains(r.stdout, "add Engineering") {
		t.Errorf("history lacks dave's creation:\n%s", r.stdout)
	}
	if r = runBinary(t, nil, "history", "--config", cfg, "--org", "nope"); r.code != exitError {
		t.Errorf("history --org of an unknown organization: exit %d, want 1", r.code)
	}
}

// TestHeldRemovalsStayHeld: a pending approval is a quarantine. When the
// sources give a held group back, the next run narrows the approval (the
// approval and the history record it) but the removal left, within the
// limit now, stays held: no run applies what nobody approved. A new
// removal counts with the held one and is held too. Reject discards an
// approval, recording who.
func TestHeldRemovalsStayHeld(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := heldConfig(t, dir, s.url, "")
	csv := filepath.Join(dir, "csv", "users.csv")
	id := syncHeld(t, cfg)
	st, err := store.Open(filepath.Join(dir, "csv", "state"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	held := func(id string) *store.Approval {
		a, err := st.Approval(id)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	if a := held(id); len(a.Changes) != 2 {
		t.Fatalf("approval %s holds %v; want bob's and mallory's removals", id, a.Changes)
	}
	// Bob is in design again: his removal is no longer wanted; mallory's
	// alone is within maxRemovals, and stays held all the same.
	rewrite(t, csv, "bob@example.com,DE,eng", `bob@example.com,DE,"eng,design"`)
	if again := syncHeld(t, cfg); again != id {
		t.Errorf("the run under the limit lists approval %s, want %s still pending", again, id)
	}
	if a := held(id); a.Status != store.Pending || len(a.Changes) != 1 || a.Changes[0].Key() != "mallory@example.com" ||
		len(a.Narrowed) != 1 || len(a.Narrowed[0].Dropped) != 1 || a.Narrowed[0].Left != 1 {
		t.Errorf("approval %s after the narrowing: %+v, want mallory's removal pending and bob's recorded as dropped", id, a)
	}
	if g, _ := groupsOf(s, "mallory@example.com"); !hasFold(g, "Marketing") {
		t.Errorf("a held removal was applied by a run under the limit: mallory has %v", g)
	}
	if g, _ := groupsOf(s, "bob@example.com"); !hasFold(g, "Design") {
		t.Errorf("bob lost Design, which the sources give again: %v", g)
	}
	if h, _ := st.History(store.Filter{User: "bob@example.com"}); len(h) == 0 || h[len(h)-1].Result != store.ResultDropped || h[len(h)-1].Approval != id {
		t.Errorf("bob's history %+v, want his held removal dropped from %s", h, id)
	}
	if r := runBinary(t, nil, "approve", "--config", cfg); !strings.Contains(r.stdout, ": 1 change held, 1 change no longer asked for dropped since") {
		t.Errorf("the listing does not show the current count:\n%s", r.stdout)
	}
	// Carol loses marketing: with mallory's held removal, 2 over 1: held.
	rewrite(t, csv, `carol@example.com,GB,"design,marketing"`, "carol@example.com,GB,design")
	r := runBinary(t, nil, "sync", "--config", cfg)
	ids := heldID.FindAllStringSubmatch(r.stdout, -1)
	if r.code != exitOK || len(ids) != 2 {
		t.Fatalf("sync with a new removal: exit %d, %d approvals listed, want 2\n%s\n%s", r.code, len(ids), r.stdout, r.stderr)
	}
	if g, _ := groupsOf(s, "carol@example.com"); !hasFold(g, "Marketing") {
		t.Errorf("a new removal split from a held one was applied: carol has %v", g)
	}
	carol := ids[1][1]
	if carol == id {
		carol = ids[0][1]
	}
	r = runBinary(t, nil, "reject", carol, "--config", cfg, "--by", "dana")
	if r.code != exitOK || !strings.Contains(r.stdout, "rejected by dana") {
		t.Fatalf("reject: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if a := held(carol); a.Status != store.Rejected || a.Decided.String() != "dana via orgsync reject" {
		t.Errorf("rejected approval: %+v", a)
	}
	if r = runBinary(t, nil, "approve", carol, "--config", cfg, "--yes"); r.code != exitError || !strings.Contains(r.stderr, "rejected already") {
		t.Errorf("approve of a rejected approval: exit %d\n%s", r.code, r.stderr)
	}
	if g, _ := groupsOf(s, "carol@example.com"); !hasFold(g, "Marketing") {
		t.Errorf("a rejected removal was applied: carol has %v", g)
	}
}

// TestOnLimitStopAppliesNothing: with safety.onLimit: stop a run over the
// limit applies nothing and fails.
func TestOnLimitStopAppliesNothing(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := heldConfig(t, dir, s.url, "\n  onLimit: stop")
	r := runBinary(t, nil, "sync", "--config", cfg)
	if r.code != exitError || !strings.Contains(r.stderr, "(safety.onLimit: stop): nothing sent, every change withheld") {
		t.Fatalf("sync with onLimit stop: exit %d, want 1 saying nothing was applied\n%s", r.code, r.stderr)
	}
	if _, found := groupsOf(s, "dave@example.com"); found {
		t.Error("onLimit stop applied the safe changes")
	}
}

// TestWithoutStateDirSaysWhatItCannotKeep: a sync without state.dir runs
// and says what it does not keep.
func TestWithoutStateDirSaysWhatItCannotKeep(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url)
	r := runBinary(t, nil, "sync", "--config", cfg)
	if r.code != exitOK || !strings.Contains(r.stderr, "state.dir is not set: no history") {
		t.Errorf("sync without state.dir: exit %d\n%s", r.code, r.stderr)
	}
	if r = runBinary(t, nil, "history", "--config", cfg); r.code != exitError || !strings.Contains(r.stderr, "set state.dir") {
		t.Errorf("history without state.dir: exit %d\n%s", r.code, r.stderr)
	}
}

// TestSyncReportAndTestOnlyHistory: sync --report writes the summary and
// every change as CSV and as one self-contained HTML page; a test-only
// sync's entries are recorded as test-only.
func TestSyncReportAndTestOnlyHistory(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := heldConfig(t, dir, s.url, "")
	r := runBinary(t, nil, "sync", "--config", cfg, "--test-only")
	if r.code != exitError { // test-only: no approval is held, the limit fails the run as before
		t.Fatalf("sync --test-only: exit %d\n%s", r.code, r.stderr)
	}
	h := runBinary(t, nil, "history", "--config", cfg, "--user", "dave@example.com")
	if !strings.Contains(h.stdout, "test-only") || strings.Contains(h.stdout, " applied ") {
		t.Errorf("history after a test-only sync:\n%s", h.stdout)
	}
	if r = runBinary(t, nil, "sync", "--config", cfg, "--report", filepath.Join(dir, "r.txt")); r.code != exitError || !strings.Contains(r.stderr, ".csv or .html") {
		t.Errorf("--report r.txt: exit %d\n%s", r.code, r.stderr)
	}
	if _, found := groupsOf(s, "dave@example.com"); found {
		t.Fatal("a sync with a bad --report ran")
	}
	for _, name := range []string{"report.csv", "report.html"} {
		path := filepath.Join(dir, name)
		r = runBinary(t, nil, "sync", "--config", cfg, "--report", path)
		if r.code != exitOK || !strings.Contains(r.stdout, "report written to "+path) {
			t.Fatalf("sync --report %s: exit %d\n%s%s", name, r.code, r.stdout, r.stderr)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		switch name {
		case "report.csv":
			if !strings.Contains(text, "summary,") || !strings.Contains(text, ",held,") || !strings.Contains(text, "change,") {
				t.Errorf("%s lacks the summary or the changes:\n%s", name, text)
			}
		case "report.html":
			if strings.Contains(text, "<script") || strings.Contains(text, "src=") || !strings.Contains(text, `<td class="held">held</td>`) {
				t.Errorf("%s is not self-contained or lacks the held run:\n%s", name, text)
			}
			host, _ := os.Hostname()
			for _, want := range []string{"Generated ", " on " + host + ", configuration " + cfg, `<table id="counts">`,
				"Held for approval (1)", "<td>~ update mallory@example.com (federatedID) groups: -Marketing -All Apps</td>"} {
				if !strings.Contains(text, want) {
					t.Errorf("%s lacks %q:\n%s", name, want, text)
				}
			}
		}
		if name == "report.csv" && !strings.Contains(text, "dave@example.com") {
			t.Errorf("the first real sync's report lacks dave's creation:\n%s", text)
		}
	}
}

// TestDemoReview: demo --review walks through plan --out, show, apply
// (removals held), approve and history, and keeps the report, the status
// page and the state directory where it says.
func TestDemoReview(t *testing.T) {
	t.Parallel()
	r := runBinary(t, nil, "demo", "--review")
	if r.code != exitOK {
		t.Fatalf("demo --review: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"== 1. orgsync plan --out", "== 2. orgsync show", "== 3. orgsync apply", "held for approval: ",
		"== 4. orgsync approve", "== 5. orgsync history", "remove Marketing; remove All Apps"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("demo --review lacks %q:\n%s", want, r.stdout)
		}
	}
	files := regexp.MustCompile(`(?m)^(Report|Status page \(as the daemon serves it\)|State directory|Saved plan): (\S+)$`).FindAllStringSubmatch(r.stdout, -1)
	if len(files) != 4 {
		t.Fatalf("demo --review names %d of its 4 outputs:\n%s", len(files), r.stdout)
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(files[0][2])) })
	for _, f := range files {
		if _, err := os.Stat(f[2]); err != nil {
			t.Errorf("%s: %v", f[1], err)
		}
	}
	st, err := store.Open(files[2][2], store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := st.Runs(0)
	if n := len(runs); n == 0 || runs[n-1].Mode != "approve" || runs[n-1].Result != store.RunSuccess {
		t.Errorf("the approve step's run record: %+v, want approve, success", runs)
	}
	page, _ := os.ReadFile(files[1][2])
	if !strings.Contains(string(page), `class="bar `) || !strings.Contains(string(page), "Pending approvals (0)") {
		t.Errorf("status page snapshot lacks the chart or says approvals are pending:\n%s", page)
	}
}

// TestApproveAsksOnATerminal: on a terminal, approve shows the changes it
// will apply and asks; "n" applies nothing and leaves the approval
// pending, "y" applies it.
func TestApproveAsksOnATerminal(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := heldConfig(t, dir, s.url, "")
	id := syncHeld(t, cfg)
	answer := func(a string) (string, int) {
		t.Helper()
		cmd := exec.Command(binary, "approve", id, "--config", cfg, "--log-level", "warn")
		tty, err := pty.Start(cmd)
		if err != nil {
			t.Fatal(err)
		}
		defer tty.Close()
		var out syncBuffer
		done := make(chan struct{})
		go func() { _, _ = io.Copy(&out, tty); close(done) }()
		waitFor(t, "the question", 30*time.Second, func() bool { return strings.Contains(out.String(), "[y/N]") })
		_, _ = tty.Write([]byte(a + "\n"))
		_ = cmd.Wait()
		<-done
		return out.String(), cmd.ProcessState.ExitCode()
	}
	text, code := answer("n")
	if code != exitError || !strings.Contains(text, "approving applies 2 changes:") || !strings.Contains(text, "apply these changes? [y/N]") ||
		!strings.Contains(text, "not approved: the approval stays pending") {
		t.Fatalf("answering n: exit %d\n%s", code, text)
	}
	if g, _ := groupsOf(s, "mallory@example.com"); !hasFold(g, "Marketing") {
		t.Fatalf("answering n applied the removal: mallory has %v", g)
	}
	if text, code = answer("y"); code != exitOK || !strings.Contains(text, "applied:") {
		t.Fatalf("answering y: exit %d\n%s", code, text)
	}
	if g, _ := groupsOf(s, "mallory@example.com"); hasFold(g, "Marketing") {
		t.Errorf("answering y did not apply the removal: mallory has %v", g)
	}
}

// TestRejectedRemovalsAreHeldAgain: a rejection discards the held
// changes; it never lets a later run send them. Bob's and mallory's
// removals are held (2 over 1), bob is put back (1 left, within the
// limit) and the approval is rejected: plan shows mallory's removal
// withheld, the next sync sends nothing destructive and holds it again in
// a new approval (told as held), the one after it holds nothing more, and
// approving the new one applies it.
func TestRejectedRemovalsAreHeldAgain(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	h := startHooks(t)
	cfg := heldConfig(t, dir, s.url, "")
	appendFile(t, cfg, "notify:\n  webhooks:\n    - url: {env: ORGSYNC_TEST_HOOK}\n")
	env := []string{"ORGSYNC_TEST_HOOK=" + h.url}
	r := runBinary(t, env, "sync", "--config", cfg)
	first := heldID.FindStringSubmatch(r.stdout)
	if first == nil {
		t.Fatalf("the first sync held nothing:\n%s\n%s", r.stdout, r.stderr)
	}
	id := first[1]
	rewrite(t, filepath.Join(dir, "csv", "users.csv"), "bob@example.com,DE,eng", `bob@example.com,DE,"eng,design"`)
	mustRun(t, exitOK, "reject", id, "--config", cfg, "--by", "auditor")

	r = mustRun(t, exitOK, "plan", "--config", cfg)
	if !strings.Contains(r.stdout, "! withheld ~ update mallory@example.com") || !strings.Contains(r.stdout, "rejected approval "+id+": 1 change the sources still ask for, held") {
		t.Errorf("plan after the rejection does not hold mallory's removal:\n%s", r.stdout)
	}
	r = runBinary(t, env, "sync", "--config", cfg)
	again := heldID.FindStringSubmatch(r.stdout)
	if r.code != exitOK || again == nil || again[1] == id {
		t.Fatalf("sync after the rejection: exit %d, want mallory's removal held in a new approval\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if g, _ := groupsOf(s, "mallory@example.com"); !hasFold(g, "Marketing") {
		t.Fatalf("a rejected removal was sent: mallory has %v", g)
	}
	told := false
	for _, ev := range h.events() {
		told = told || ev["event"] == string(notify.Held) && ev["approval"] == again[1]
	}
	if !told {
		t.Errorf("holding the rejected removal again was not told: %v", h.events())
	}
	if m := heldID.FindAllStringSubmatch(mustRun(t, exitOK, "sync", "--config", cfg).stdout, -1); len(m) != 1 || m[0][1] != again[1] {
		t.Errorf("the next sync lists approvals %v, want %s alone", m, again[1])
	}
	mustRun(t, exitOK, "approve", again[1], "--config", cfg, "--yes")
	if g, _ := groupsOf(s, "mallory@example.com"); hasFold(g, "Marketing") {
		t.Errorf("approving the approval held again did not apply it: mallory has %v", g)
	}
}

// TestApproveListsWhereApprovalsStandNow: the listing of approve says
// where each pending approval stands now, by a fresh plan, not only what
// it held: after bob is in design again, one of its two changes is no
// longer asked for, before any sync narrows it. Without a fresh plan (the
// source unreadable) the listing still lists, and says why it cannot
// tell.
func TestApproveListsWhereApprovalsStandNow(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := heldConfig(t, dir, s.url, "")
	id := syncHeld(t, cfg)
	users := filepath.Join(dir, "csv", "users.csv")
	rewrite(t, users, "bob@example.com,DE,eng", `bob@example.com,DE,"eng,design"`)
	r := runBinary(t, nil, "approve", "--config", cfg)
	if r.code != exitOK || !strings.Contains(r.stdout, id+" ") || !strings.Contains(r.stdout, ": 2 changes held (when held") ||
		!strings.Contains(r.stdout, "now: 1 change the sources still ask for (orgsync approve "+id+" applies them), 1 no longer") {
		t.Errorf("approve lists: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if err := os.Rename(users, users+".moved"); err != nil {
		t.Fatal(err)
	}
	r = runBinary(t, nil, "approve", "--config", cfg)
	if r.code != exitOK || !strings.Contains(r.stdout, ": 2 changes held") || !strings.Contains(r.stdout, "(where they stand now is unknown: a fresh plan failed: sources[0]") {
		t.Errorf("approve lists with the source unreadable: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if runs := runsOf(t, cfg); len(runs) != 1 {
		t.Errorf("listing recorded runs: %+v", runs)
	}
}
