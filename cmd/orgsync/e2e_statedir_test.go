package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/target/umsim"
)

// TestStateDirTrustedOrRefused: a state folder every user can write is
// refused, by sync (nothing sent) and by validate, with the chmod that
// fixes it; a history file that is a link, and a log file that is one,
// are refused and nothing is appended to what they lead to.
func TestStateDirTrustedOrRefused(t *testing.T) {
	t.Parallel()
	notGolden(t)
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url, "maxRemovals: 50%", "maxRemovals: 50%\nstate:\n  dir: state")
	state := filepath.Join(dir, "csv", "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(state, 0o777); err != nil { // as umask 000 or a careless chmod leaves it
		t.Fatal(err)
	}
	r := runBinary(t, nil, "sync", "--config", cfg)
	if r.code != exitError || !strings.Contains(r.stderr, "can be written by every user (mode 0777)") || !strings.Contains(r.stderr, "chmod 0700 "+state) {
		t.Errorf("sync with a state folder of mode 0777: exit %d\n%s", r.code, r.stderr)
	}
	if _, found := groupsOf(s, "dave@example.com"); found {
		t.Error("a sync whose state folder is refused sent its changes")
	}
	if r := runBinary(t, nil, "validate", "--config", cfg); r.code != exitError || !strings.Contains(r.stdout, "chmod 0700 "+state) {
		t.Errorf("validate with a state folder of mode 0777: exit %d\n%s", r.code, r.stdout)
	}
	if err := os.Chmod(state, 0o700); err != nil {
		t.Fatal(err)
	}

	elsewhere := filepath.Join(dir, "elsewhere.txt")
	if err := os.WriteFile(elsewhere, []byte("not orgsync's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(state, "history.jsonl")); err != nil {
		t.Fatal(err)
	}
	r = runBinary(t, nil, "sync", "--config", cfg)
	if r.code != exitError || !strings.Contains(r.stderr, "history.jsonl is a symbolic link") {
		t.Errorf("sync with history.jsonl a link: exit %d\n%s", r.code, r.stderr)
	}
	if err := os.Remove(filepath.Join(state, "history.jsonl")); err != nil {
		t.Fatal(err)
	}
	logs := filepath.Join(dir, "logs")
	if err := os.Mkdir(logs, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(logs, "orgsync.log")); err != nil {
		t.Fatal(err)
	}
	appendFile(t, cfg, "logging:\n  file: "+filepath.Join(logs, "orgsync.log")+"\n")
	r = runBinary(t, nil, "sync", "--config", cfg)
	if r.code != exitError || !strings.Contains(r.stderr, "orgsync.log is a symbolic link") {
		t.Errorf("sync with logging.file a link: exit %d\n%s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(elsewhere); string(b) != "not orgsync's\n" {
		t.Errorf("a link's target was written to: %q", b)
	}
}

// TestApproveThatCouldNotRecordIsRecovered: an approve whose history
// cannot be written (as on a full disk) applies the changes and exits 3;
// it is no longer stuck "being applied by another orgsync": once the
// state directory is mended, the next command that touches the approval
// (the listing) recovers it, says so, and records in the history what
// the service confirmed; the approval is approved, nothing of the apply
// is left behind, and approve and reject say it is approved.
func TestApproveThatCouldNotRecordIsRecovered(t *testing.T) {
	t.Parallel()
	notGolden(t)
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := heldConfig(t, dir, s.url, "")
	id := syncHeld(t, cfg)
	history := filepath.Join(dir, "csv", "state", "history.jsonl")
	if err := os.Rename(history, history+".kept"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(history, 0o700); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, nil, "approve", id, "--config", cfg, "--yes")
	if r.code != exitUnrecorded {
		t.Fatalf("approve with a history that cannot be written: exit %d, want %d\n%s%s", r.code, exitUnrecorded, r.stdout, r.stderr)
	}
	if g, _ := groupsOf(s, "mallory@example.com"); hasFold(g, "Marketing") {
		t.Fatal("the approved removal was not applied")
	}
	if err := os.Remove(history); err != nil || os.Rename(history+".kept", history) != nil {
		t.Fatalf("mending the history: %v", err)
	}
	r = runBinary(t, nil, "approve", "--config", cfg)
	if r.code != exitOK || !strings.Contains(r.stderr, "approval "+id+" was interrupted while being applied") || !strings.Contains(r.stderr, "now recorded in the history") {
		t.Errorf("the listing after: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runBinary(t, nil, "history", "--config", cfg, "--user", "mallory@example.com")
	if !strings.Contains(r.stdout, "applied") || !strings.Contains(r.stdout, id) {
		t.Errorf("mallory's history after the recovery:\n%s%s", r.stdout, r.stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "csv", "state", "approvals", "*"+id+"*")); len(left) != 1 {
		t.Errorf("the approvals folder holds %v, want the approval only", left)
	}
	for _, cmd := range []string{"approve", "reject"} {
		args := []string{cmd, id, "--config", cfg}
		if cmd == "approve" {
			args = append(args, "--yes")
		}
		if r := runBinary(t, nil, args...); r.code != exitError || !strings.Contains(r.stderr, "approved already") {
			t.Errorf("%s after the recovery: exit %d\n%s", cmd, r.code, r.stderr)
		}
	}
}
