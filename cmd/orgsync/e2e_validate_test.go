package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Plain validate (no network) reports, all at once and each once, what
// plan would refuse: an unset secret variable, a private key file that is
// not a key (naming its file), every source that cannot be read; its last line agrees with
// its exit code.
func TestValidateCatchesWhatPlanRefuses(t *testing.T) {
	dir := exampleDir(t)
	if err := os.WriteFile(filepath.Join(dir, "not-a-key.pem"), []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := configFor(t, dir, "csv", "http://127.0.0.1:9",
		"clientSecret: {file: ../sim/demo-client-secret}", "clientSecret: {env: ORGSYNC_TEST_UNSET}",
		"privateKey: {file: ../sim/demo-private-key.pem}", "privateKey: {file: ../not-a-key.pem}",
		"      path: users.csv\n", "      path: missing-1.csv\n  - csv:\n      path: missing-2.csv\n")
	r := runBinary(t, nil, "validate", "--config", cfg)
	want := []string{
		"problem: target.auth.clientSecret: environment variable ORGSYNC_TEST_UNSET is not set",
		"not-a-key.pem): not PEM",
		"problem: sources[0] (csv missing-1.csv)",
		"problem: sources[1] (csv missing-2.csv)",
		"4 problems to fix",
	}
	if r.code != exitError {
		t.Errorf("exit %d, want 1", r.code)
	}
	for _, w := range want {
		if n := strings.Count(r.stdout+r.stderr, strings.TrimPrefix(w, "problem: ")); n != 1 {
			t.Errorf("%q appears %d times, want once:\nstdout:\n%s\nstderr:\n%s", w, n, r.stdout, r.stderr)
		}
	}
	if strings.Contains(r.stdout, "configuration valid") {
		t.Errorf("validate calls a configuration with problems valid:\n%s", r.stdout)
	}
}

// The placeholders orgsync init writes are refused by the configuration's
// checks, each on its line, with what to put there, and the unset secret
// variable with them (not on the next try).
func TestInitPlaceholdersRefused(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "orgsync.yaml")
	if r := runBinary(t, nil, "init", "--output", cfg); r.code != exitOK {
		t.Fatalf("init: exit %d\n%s", r.code, r.stderr)
	}
	r := runBinary(t, []string{"ORGSYNC_CLIENT_SECRET="}, "validate", "--config", cfg)
	for _, key := range []string{"target.orgId (line", "target.baseURL (line", "target.auth.clientId (line", "target.auth.technicalAccountId (line",
		"target.auth.clientSecret (line 20): environment variable ORGSYNC_CLIENT_SECRET is not set"} {
		if !strings.Contains(r.stdout, key) || r.code != exitError {
			t.Errorf("exit %d; the output does not name %s:\n%s", r.code, key, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "is the placeholder orgsync init writes") {
		t.Errorf("the output does not say what is wrong:\n%s", r.stdout)
	}
}

// A directory group misspelt in the mapping gets a "did you mean", as
// keys do: the file's group that no rule maps names the rule it is close
// to.
func TestMisspeltDirectoryGroupDidYouMean(t *testing.T) {
	dir := exampleDir(t)
	cfg := configFor(t, dir, "csv", "http://127.0.0.1:9", "directory: design", "directory: desgin")
	r := runBinary(t, nil, "validate", "--config", cfg)
	if want := `group "design" matches no mapping rule, so its members get nothing from it; did you mean the rule's directory group "desgin"?`; !strings.Contains(r.stdout, want) {
		t.Errorf("validate does not say %q:\n%s\n%s", want, r.stdout, r.stderr)
	}
}

// TestValidateOfAStarterReadsItsSources: the file orgsync init writes,
// its target not yet filled in, still has its sources read by validate,
// so the first validate names the CSV file that is missing, then the bad
// record, beside the target's problems, and counts them all, on standard
// output, where validate prints every problem it finds (the configuration's
// and the sources' alike). A problem in the sources themselves stops
// there: they are not read.
func TestValidateOfAStarterReadsItsSources(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "orgsync.yaml")
	if r := runBinary(t, nil, "init", "--source", "csv", "--output", cfg); r.code != exitOK {
		t.Fatalf("init: exit %d\n%s", r.code, r.stderr)
	}
	r := runBinary(t, nil, "validate", "--config", cfg)
	if r.code != exitError || !strings.Contains(r.stdout, "target.orgId (line") || strings.Contains(r.stderr, "target.orgId") ||
		!strings.Contains(r.stdout, "problem: sources[0] (csv users.csv): cannot read the CSV file") ||
		!strings.HasSuffix(strings.TrimSpace(r.stdout), "orgsync.yaml: 7 problems to fix; 0 desired users from 1 source; 0 notices") {
		t.Fatalf("validate of the starter: exit %d, want 1, the target's problems and the missing CSV file counted together\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	csv := "firstname,lastname,email,country,groups\nAda,Lovelace,ada@example.com,GB,engineering\nBob,Bad,bad-email,US,design\n"
	if err := os.WriteFile(filepath.Join(dir, "users.csv"), []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runBinary(t, nil, "validate", "--config", cfg)
	if r.code != exitError || !strings.Contains(r.stdout, `users.csv:3 bad-email: email: "bad-email" is not an email address`) ||
		!strings.HasSuffix(strings.TrimSpace(r.stdout), "orgsync.yaml: 7 problems to fix; 1 desired user from 1 source; 0 notices") {
		t.Fatalf("validate with the CSV file: exit %d, want 1 and the bad record\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rewrite(t, cfg, "path: users.csv", "path: users.csv\n      encoding: ebcdic")
	r = runBinary(t, nil, "validate", "--config", cfg)
	if r.code != exitError || !strings.Contains(r.stdout, "encoding") || strings.Contains(r.stdout, "desired user") ||
		!strings.HasSuffix(strings.TrimSpace(r.stdout), "problems to fix") {
		t.Fatalf("validate with a bad source setting: exit %d, want 1, the problem, and no source read\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
