package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/target/umsim"
)

// userNamed returns the simulator's user with email.
func userNamed(s *sim, email string) (umsim.User, bool) {
	for _, u := range s.Snapshot().Users {
		if strings.EqualFold(u.Email, email) {
			return u, true
		}
	}
	return umsim.User{}, false
}

// A CSV file saved in Latin-1 is a bad record per line with "not UTF-8;
// set encoding" when read as UTF-8, and with encoding: latin1 syncs
// "Jürgen Müller" as written.
func TestLatin1CSVSyncs(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	latin1 := "firstname,lastname,email,country,groups\n" +
		"Alice,Anders,alice@example.com,US,eng\n" +
		"J\xfcrgen,M\xfcller,juergen@example.com,DE,eng\n"
	if err := os.WriteFile(filepath.Join(dir, "csv", "latin1.csv"), []byte(latin1), 0o600); err != nil {
		t.Fatal(err)
	}
	plain := configFor(t, dir, "csv", s.url, "path: users.csv", "path: latin1.csv")
	r := runBinary(t, nil, "validate", "--config", plain)
	if r.code != exitError || !strings.Contains(r.stdout, "latin1.csv:3 juergen@example.com: firstname: not UTF-8") ||
		!strings.Contains(r.stdout, "set encoding") {
		t.Fatalf("validate of a Latin-1 file read as UTF-8: exit %d, want 1 and the record named\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	cfg := configFor(t, dir, "csv", s.url, "path: users.csv", "path: latin1.csv\n      encoding: latin1", "unmatchedUsers: remove-groups", "unmatchedUsers: preserve")
	if r := runBinary(t, nil, "validate", "--config", cfg); r.code != exitOK || !strings.Contains(r.stdout, "configuration valid;") {
		t.Fatalf("validate with encoding latin1: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r := runBinary(t, nil, "sync", "--config", cfg); r.code != exitOK {
		t.Fatalf("sync: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	u, ok := userNamed(s, "juergen@example.com")
	if !ok || u.FirstName != "Jürgen" || u.LastName != "Müller" {
		t.Fatalf("user in the organization: %+v (found %v), want Jürgen Müller", u, ok)
	}
}

// Each planned change is printed once: on standard output by plan and
// sync (the log has it at debug only), in the log at info by the daemon,
// which prints no plan. The text plan lists the unmatched users and the
// excluded count.
func TestEachChangePrintedOnce(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url)
	r := runBinary(t, nil, "plan", "--config", cfg)
	if r.code != exitOK {
		t.Fatalf("plan: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if n := strings.Count(r.stdout, "dave@example.com"); n != 1 {
		t.Errorf("the plan names dave %d times on stdout, want 1:\n%s", n, r.stdout)
	}
	if strings.Contains(r.stderr, "dave@example.com") || strings.Contains(r.stderr, "planned: ") {
		t.Errorf("the log repeats the plan at the default level:\n%s", r.stderr)
	}
	for _, want := range []string{"unmatched user", "#   mallory@example.com (federatedID)\n", "# 1 excluded user (left alone by policy.exclude)\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the text plan lacks %q:\n%s", want, r.stdout)
		}
	}
	r = runBinary(t, nil, "plan", "--config", cfg, "--log-level", "debug")
	if !strings.Contains(r.stderr, `"msg":"planned: `) {
		t.Errorf("plan at debug level does not log the planned changes:\n%s", r.stderr)
	}
	r = runBinary(t, nil, "sync", "--config", cfg)
	if n := strings.Count(r.stdout+r.stderr, "+ create dave@example.com"); n != 1 {
		t.Errorf("sync prints dave's creation %d times, want 1:\n%s\n%s", n, r.stdout, r.stderr)
	}
}

// Targets that pattern rules make and that do not exist in the
// organization: without createUserGroups, validate --check-target and plan
// name them with what to do, before any change is sent; with it, sync
// creates them as user groups and converges.
func TestMissingTargetsOfPatternRules(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	rule := "mapping:\n  - pattern: \"(.*)\"\n    targets: [\"Team $1\"]\n"
	cfg := configFor(t, dir, "csv", s.url, "mapping:\n", rule)

	r := runBinary(t, nil, "validate", "--config", cfg, "--check-target")
	if r.code != exitError || !strings.Contains(r.stdout, `problem: target group "Team eng" does not exist in the organization: create it in the organization (a product profile or a user group), set policy.createUserGroups: true`) {
		t.Fatalf("validate --check-target: exit %d, want 1 and the missing target named\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = runBinary(t, nil, "plan", "--config", cfg)
	if !strings.Contains(r.stdout, `! target group "Team design" does not exist in the organization (2 source users would be added to it; none is)`) ||
		strings.Contains(r.stdout, "+Team ") {
		t.Fatalf("plan: want the missing target reported and no membership of it planned:\n%s\n%s", r.stdout, r.stderr)
	}
	if n := s.Stats().Requests["action"]; len(n) != 0 {
		t.Fatalf("validate and plan sent action requests: %v", n)
	}
	if r = runBinary(t, nil, "sync", "--config", cfg); r.code != exitError || !strings.Contains(r.stderr, `target group "Team eng" does not exist`) {
		t.Fatalf("sync with missing targets: exit %d, want 1 naming them\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	create := configFor(t, dir, "csv", s.url, "mapping:\n", rule, "policy:\n", "policy:\n  createUserGroups: true\n")
	r = runBinary(t, nil, "validate", "--config", create, "--check-target")
	if r.code != exitOK || !strings.Contains(r.stdout, `notice: target group "Team eng" does not exist in the organization yet: sync creates it as a user group`) {
		t.Fatalf("validate --check-target with createUserGroups: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r = runBinary(t, nil, "sync", "--config", create); r.code != exitOK || !strings.Contains(r.stdout, "+ create-group Team eng") {
		t.Fatalf("sync with createUserGroups: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if g, _ := groupsOf(s, "dave@example.com"); !hasFold(g, "Team eng") || !hasFold(g, "Team design") {
		t.Errorf("dave's groups after sync: %v", g)
	}
	if r = runBinary(t, nil, "plan", "--config", create, "--detailed-exitcode"); r.code != exitOK {
		t.Errorf("plan after sync: exit %d, want 0\n%s", r.code, r.stdout)
	}
}

// The demo's secret files, world-readable as a checkout leaves them, get
// no permission warning (they are public); a real secret file that every
// user may read does.
func TestDemoSecretsDoNotWarn(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	for _, f := range []string{"demo-client-secret", "demo-private-key.pem"} {
		if err := os.Chmod(filepath.Join(dir, "sim", f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := configFor(t, dir, "csv", "http://127.0.0.1:1")
	if r := runBinary(t, nil, "validate", "--config", cfg); r.code != exitOK || strings.Contains(r.stdout+r.stderr, "readable by every user") {
		t.Fatalf("validate with the demo secrets at 0644: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, "sim", "demo-client-secret"), []byte("a-real-secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runBinary(t, nil, "validate", "--config", cfg); !strings.Contains(r.stdout+r.stderr, "demo-client-secret is readable by every user of this machine (mode 0644)") {
		t.Fatalf("validate with a real secret at 0644: no warning\n%s\n%s", r.stdout, r.stderr)
	}
}
