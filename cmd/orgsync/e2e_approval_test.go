package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/internal/state"
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
	if r.code != exitOK || strings.Count(r.stdout, "\n") != 1 || !strings.Contains(r.stdout, id) {
		t.Fatalf("approve lists: exit %d, want the one approval %s\n%s%s", r.code, id, r.stdout, r.stderr)
	}
	r = runBinary(t, nil, "approve", id, "--config", cfg)
	if r.code != exitOK || !strings.Contains(r.stdout, "mallory@example.com") || !strings.Contains(r.stdout, "applied:") {
		t.Fatalf("approve %s: exit %d\n%s\n%s", id, r.code, r.stdout, r.stderr)
	}
	if g, _ := groupsOf(s, "mallory@example.com"); hasFold(g, "Marketing") {
		t.Errorf("approved removal not applied: mallory has %v", g)
	}
	if r = runBinary(t, nil, "approve", id, "--config", cfg); r.code != exitError || !strings.Contains(r.stderr, "approved already") {
		t.Errorf("a second approve: exit %d, want 1 saying it is approved already\n%s", r.code, r.stderr)
	}
	if r = runBinary(t, nil, "plan", "--config", cfg, "--detailed-exitcode"); r.code != exitOK {
		t.Errorf("plan after the approval: exit %d, want in sync\n%s", r.code, r.stdout)
	}

	r = runBinary(t, nil, "history", "--config", cfg, "--user", "MALLORY@example.com", "--output", "json", "--since", "1h")
	var entries []state.Entry
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var e state.Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("history line %q: %v\n%s", line, err, r.stderr)
		}
		entries = append(entries, e)
	}
	if len(entries) != 1 || entries[0].Approval != id || entries[0].Result != state.ResultApplied ||
		!strings.Contains(strings.Join(entries[0].Steps, ","), "remove Marketing") || entries[0].Reason == "" {
		t.Errorf("mallory's history: %+v, want the one approved removal of Marketing, with why", entries)
	}
	r = runBinary(t, nil, "history", "--config", cfg)
	if !strings.Contains(r.stdout, "dave@example.com") || !strings.Contains(r.stdout, "add Engineering") {
		t.Errorf("history lacks dave's creation:\n%s", r.stdout)
	}
	if r = runBinary(t, nil, "history", "--config", cfg, "--org", "nope"); r.code != exitError {
		t.Errorf("history --org of an unknown organization: exit %d, want 1", r.code)
	}
}

// TestLaterRunDropsWhatItNoLongerWants: when the sources give a held
// group back, the next run no longer holds that removal; the one left is
// within the limit and the run applies it itself, so the approval is
// dropped. Reject discards an approval.
func TestLaterRunDropsWhatItNoLongerWants(t *testing.T) {
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := heldConfig(t, dir, s.url, "")
	csv := filepath.Join(dir, "csv", "users.csv")
	id := syncHeld(t, cfg)
	st, err := state.Open(filepath.Join(dir, "csv", "state"), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	held := func(id string) string {
		a, err := st.Approval(id)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range a.Changes {
			out = append(out, c.String())
		}
		return a.Status + ": " + strings.Join(out, "; ")
	}
	if got := held(id); !strings.Contains(got, "bob@example.com") || !strings.Contains(got, "mallory@example.com") {
		t.Fatalf("approval %s holds %s; want bob's and mallory's removals", id, got)
	}
	// Bob is in design again: his removal is no longer wanted; mallory's
	// alone is within maxRemovals, and this run applies it.
	rewrite(t, csv, "bob@example.com,DE,eng", `bob@example.com,DE,"eng,design"`)
	r := runBinary(t, nil, "sync", "--config", cfg)
	if r.code != exitOK || heldID.MatchString(r.stdout) {
		t.Fatalf("sync with bob back: exit %d, want 0 with nothing held\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if got := held(id); !strings.HasPrefix(got, state.Dropped) {
		t.Errorf("approval %s: %s, want dropped", id, got)
	}
	if g, _ := groupsOf(s, "bob@example.com"); !hasFold(g, "Design") {
		t.Errorf("bob lost Design, which the sources give again: %v", g)
	}
	if g, _ := groupsOf(s, "mallory@example.com"); hasFold(g, "Marketing") {
		t.Errorf("mallory's removal, within the limit now, was not applied: %v", g)
	}
	if r = runBinary(t, nil, "reject", id, "--config", cfg); r.code != exitError {
		t.Errorf("reject of a dropped approval: exit %d, want 1", r.code)
	}
	// A fresh hold (bob and carol lose groups), rejected.
	rewrite(t, csv, `bob@example.com,DE,"eng,design"`, "bob@example.com,DE,eng")
	rewrite(t, csv, `carol@example.com,GB,"design,marketing"`, "carol@example.com,GB,design")
	id = syncHeld(t, cfg)
	r = runBinary(t, nil, "reject", id, "--config", cfg)
	if r.code != exitOK || !strings.Contains(r.stdout, "rejected") {
		t.Fatalf("reject: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r = runBinary(t, nil, "approve", id, "--config", cfg); r.code != exitError || !strings.Contains(r.stderr, "rejected already") {
		t.Errorf("approve of a rejected approval: exit %d\n%s", r.code, r.stderr)
	}
	if g, _ := groupsOf(s, "carol@example.com"); !hasFold(g, "Marketing") {
		t.Errorf("a rejected removal was applied: carol has %v", g)
	}
}

// TestOnLimitStopAppliesNothing: with safety.onLimit: stop a run over the
// limit applies nothing and fails.
func TestOnLimitStopAppliesNothing(t *testing.T) {
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := heldConfig(t, dir, s.url, "\n  onLimit: stop")
	r := runBinary(t, nil, "sync", "--config", cfg)
	if r.code != exitError || !strings.Contains(r.stderr, "safety.onLimit is stop: nothing applied") {
		t.Fatalf("sync with onLimit stop: exit %d, want 1 saying nothing was applied\n%s", r.code, r.stderr)
	}
	if _, found := groupsOf(s, "dave@example.com"); found {
		t.Error("onLimit stop applied the safe changes")
	}
}

// TestWithoutStateDirSaysWhatItCannotKeep: a sync without state.dir runs
// and says what it does not keep.
func TestWithoutStateDirSaysWhatItCannotKeep(t *testing.T) {
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
	page, _ := os.ReadFile(files[1][2])
	if !strings.Contains(string(page), `class="bar"`) || !strings.Contains(string(page), "Pending approvals (0)") {
		t.Errorf("status page snapshot lacks the chart or says approvals are pending:\n%s", page)
	}
}
