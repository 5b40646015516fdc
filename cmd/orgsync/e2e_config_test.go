package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umsim"
)

func TestConfigErrorsCarryLines(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	bad := filepath.Join(dir, "csv", "bad.yaml")
	text := `target:
  orgId: 1234ABCD@VendorOrg
  baseURL: http://127.0.0.1:1
  auth:
    clientId: orgsync-demo
    clientSecret: {file: ../sim/demo-client-secret}
    technicalAccountId: demo-tech@techacct.example.com
    privateKey: {file: ../sim/demo-private-key.pem}
    colour: blue
sources:
  - csv: {path: users.csv}
  - ldap:
      url: ldap://127.0.0.1:1
      users: {filter: "(uid=*)"}
schedule: {cron: "*/5 * * * *"}
`
	if err := os.WriteFile(bad, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"validate", "plan", "sync"} {
		r := runBinary(t, nil, cmd, "--config", bad)
		if r.code != exitError {
			t.Errorf("%s: exit %d, want %d", cmd, r.code, exitError)
		}
		for _, want := range []string{
			"target.auth.colour (line 9): unknown key",
			"sources[1].ldap.users.baseDN (line 14): required",
			"schedule.cron (line 15): runs every 5m0s",
		} {
			out := r.stderr // an error of a command that cannot start
			if cmd == "validate" {
				out = r.stdout // what validate finds
			}
			if !strings.Contains(out, want) {
				t.Errorf("%s: the output lacks %q:\n%s", cmd, want, out)
			}
		}
	}
}

func TestValidateReadsSourcesAndChecksTarget(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	for _, example := range []string{"csv", "yaml"} {
		cfg := configFor(t, dir, example, s.url)
		r := runBinary(t, nil, "validate", "--config", cfg, "--check-target")
		if r.code != exitOK || !strings.Contains(r.stdout, "configuration valid; 6 desired users from 1 source;") ||
			!strings.Contains(r.stdout, "target: signed in") {
			t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", example, r.code, r.stdout, r.stderr)
		}
	}
	// A bad row is reported with its file and line, and fails validate.
	csv := filepath.Join(dir, "csv", "users.csv")
	f, err := os.OpenFile(csv, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("Zed,Zero,not-an-email,US,eng\nYves,Young,yves@example.com,US,sales\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r := runBinary(t, nil, "validate", "--config", configFor(t, dir, "csv", s.url))
	if r.code != exitError || !strings.Contains(r.stdout, "users.csv:8") ||
		!strings.Contains(r.stdout, `users.csv:9: groups: group "sales" matches no mapping rule`) || !strings.Contains(r.stdout, "1 problem to fix;") {
		t.Errorf("bad row: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestAdminCommands(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	invite := fmt.Sprintf("invites:\n  - {email: ivan@example.org, lastSentDTS: %d, groups: [Design]}\n  - {email: olga@example.org, lastSentDTS: %d}\n",
		time.Now().UnixMilli(), time.Now().Add(-60*24*time.Hour).UnixMilli()) // olga's has expired
	appendFile(t, filepath.Join(dir, "sim", "org.yaml"), invite)
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"users", "list"}, []string{"alice@example.com", "mallory@example.com", "Old-Name"}},
		{[]string{"users", "list", "--group", "Design"}, []string{"bob@example.com", "carol@example.com"}},
		{[]string{"users", "get", "--domain", "example.com", "ALICE@example.com"}, []string{"alice@example.com", "Anders"}},
		{[]string{"products", "--output", "json"}, []string{`"name": "Creative Cloud"`, `"code": "AC"`}},
		{[]string{"invites", "list"}, []string{"EMAIL", "ivan@example.org"}},
		{[]string{"invites", "resend", "ivan@example.org"}, []string{"invite of ivan@example.org resent"}},
		{[]string{"invites", "resend", "--output", "json", "ivan@example.org"}, []string{`"email": "ivan@example.org"`, `"done": "resent"`}},
		{[]string{"invites", "revoke", "ivan@example.org"}, []string{"invite of ivan@example.org revoked"}},
	}
	for _, tt := range tests {
		args := append([]string{tt.args[0], "--config", cfg}, tt.args[1:]...)
		if tt.args[0] == "users" || tt.args[0] == "invites" {
			args = append([]string{tt.args[0], tt.args[1], "--config", cfg}, tt.args[2:]...)
		}
		r := runBinary(t, nil, args...)
		if r.code != exitOK {
			t.Errorf("%v: exit %d: %s", tt.args, r.code, r.stderr)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%v: stdout lacks %q:\n%s", tt.args, w, r.stdout)
			}
		}
	}
	if r := runBinary(t, nil, "invites", "list", "--config", cfg); strings.Contains(r.stdout, "ivan@") || !strings.Contains(r.stdout, "olga@") {
		t.Errorf("want the expired invite listed, the revoked one not:\n%s", r.stdout)
	}
	if r := runBinary(t, nil, "invites", "list", "--config", cfg, "--exclude-expired"); r.code != exitOK || strings.Contains(r.stdout, "olga@") {
		t.Errorf("invites list --exclude-expired: exit %d, lists the expired invite:\n%s", r.code, r.stdout)
	}
	if r := runBinary(t, nil, "invites", "list", "--config", cfg, "--exclude-expired", "--output", "json"); r.code != exitOK || strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("invites list --output json without invites: exit %d, want [] (not null):\n%s", r.code, r.stdout)
	}
	if r := runBinary(t, nil, "invites", "revoke", "--config", cfg, "ivan@example.org"); r.code != exitError || !strings.Contains(r.stderr, "orgsync sync` invites a user of a source again") {
		t.Errorf("revoking a revoked invite: exit %d, want 1 and a hint\n%s", r.code, r.stderr)
	}
	if r := runBinary(t, nil, "users", "get", "--config", cfg, "nobody@example.com"); r.code != exitError {
		t.Errorf("users get of an unknown user: exit %d", r.code)
	}
	if r := runBinary(t, nil, "version"); r.code != exitOK || !strings.HasPrefix(r.stdout, "orgsync ") {
		t.Errorf("version: %+v", r)
	}
}

// TestExecSecretRunsInTheConfigurationsFolder: a secret command with a
// relative path runs in the configuration's folder, as file: paths are
// read there, whatever folder orgsync runs in; a command that fails is
// one problem, said once.
func TestExecSecretRunsInTheConfigurationsFolder(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	script := filepath.Join(dir, "csv", "get-secret.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncat ../sim/demo-client-secret\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := configFor(t, dir, "csv", s.url, "clientSecret: {file: ../sim/demo-client-secret}", "clientSecret: {exec: [./get-secret.sh]}")
	if r := runBinary(t, nil, "plan", "--config", cfg); r.code != exitOK {
		t.Fatalf("plan with a secret command beside the configuration: exit %d\n%s", r.code, r.stderr)
	}
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho vault sealed >&2\nexit 3\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"validate", "plan"} {
		r := runBinary(t, nil, cmd, "--config", cfg)
		if n := strings.Count(r.stdout+r.stderr, "vault sealed"); r.code != exitError || n != 1 {
			t.Errorf("%s with a failing secret command: exit %d, the problem said %d times, want once\n%s%s", cmd, r.code, n, r.stdout, r.stderr)
		}
	}
}
