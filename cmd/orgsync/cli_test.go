package main

import (
	"bytes"
	"context"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/internal/demo/starter"
	"github.com/orgsync/orgsync/target/umsim"
)

// runInProcess runs the command line in-process and returns its exit code,
// standard output and standard error.
func runInProcess(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = dispatch(context.Background(), args, stdio{out: &out, err: &errOut})
	return code, out.String(), errOut.String()
}

// TestFlagsAfterArguments: flags may follow the arguments, and "--" ends
// the flags.
func TestFlagsAfterArguments(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url)
	for _, args := range [][]string{
		{"users", "get", "alice@example.com", "--config", cfg, "--output", "json"},
		{"users", "get", "--config", cfg, "alice@example.com", "--output=json"},
		{"users", "get", "--config", cfg, "--output", "json", "--", "alice@example.com"},
	} {
		code, out, errOut := runInProcess(args...)
		if code != exitOK || !strings.Contains(out, `"email": "alice@example.com"`) {
			t.Errorf("%v: exit %d\n%s\n%s", args, code, out, errOut)
		}
	}
	code, _, errOut := runInProcess("users", "get", "alice@example.com", "--config", cfg, "bob@example.com")
	if code != exitError || !strings.Contains(errOut, `unexpected argument "bob@example.com"`) {
		t.Errorf("two emails: exit %d\n%s", code, errOut)
	}
}

// TestHelpAndVersion: every way of asking for help or the version prints
// it to standard output and exits 0.
func TestHelpAndVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"users", "-h"}, "orgsync users list [--group NAME] | orgsync users get EMAIL"},
		{[]string{"users", "--help"}, "orgsync users list"},
		{[]string{"invites", "-h"}, "orgsync invites resend EMAIL"},
		{[]string{"invites", "help"}, "orgsync invites revoke EMAIL"},
		{[]string{"users", "get", "-h"}, "-domain"},
		{[]string{"plan", "--help"}, "-detailed-exitcode"},
		{[]string{"help", "approve"}, "usage: orgsync approve [ID]"},
		{[]string{"approve", "-h"}, "-dry-run"},
		{[]string{"reject", "-h"}, "usage: orgsync reject ID [flags]"},
		{[]string{"apply", "--help"}, "usage: orgsync apply FILE [flags]"},
		{[]string{"-h"}, "orgsync --version"},
		{[]string{"--version"}, "orgsync " + version},
		{[]string{"-version"}, "orgsync " + version},
		{[]string{"version"}, "orgsync " + version},
	}
	for _, tt := range tests {
		code, out, errOut := runInProcess(tt.args...)
		if code != exitOK || !strings.Contains(out, tt.want) {
			t.Errorf("%v: exit %d, stdout lacks %q:\n%s\nstderr:\n%s", tt.args, code, tt.want, out, errOut)
		}
	}
	code, _, errOut := runInProcess("users", "delete")
	if code != exitError || !strings.Contains(errOut, "usage: orgsync users") {
		t.Errorf("users delete: exit %d\n%s", code, errOut)
	}
}

// TestConfigFlagDefaultShownOnce: the --config help names its default
// once, and names $ORGSYNC_CONFIG's value when set.
func TestConfigFlagDefaultShownOnce(t *testing.T) {
	// Not parallel: ORGSYNC_CONFIG is read from the process's environment (t.Setenv).
	_, out, _ := runInProcess("plan", "-h")
	line := regexp.MustCompile(`(?m)^\s+-config string\n.*$`).FindString(out)
	if n := strings.Count(line, "orgsync.yaml"); n != 1 {
		t.Errorf("-config help names orgsync.yaml %d times:\n%s", n, line)
	}
	t.Setenv("ORGSYNC_CONFIG", "/etc/orgsync/prod.yaml")
	_, out, _ = runInProcess("sync", "-h")
	if !strings.Contains(out, `(default "/etc/orgsync/prod.yaml")`) {
		t.Errorf("-config help ignores ORGSYNC_CONFIG:\n%s", out)
	}
}

// A configuration file that is not there (orgsync run where there is no
// orgsync.yaml) says how to name one or make one, in one line.
func TestMissingConfigurationSaysWhatToDo(t *testing.T) {
	t.Parallel()
	missing := t.TempDir() + "/orgsync.yaml"
	code, out, errOut := runInProcess("plan", "--config", missing)
	want := "orgsync: there is no configuration file " + missing + ": name yours with --config FILE (or $ORGSYNC_CONFIG), or write a starter one with orgsync init"
	if code != exitError || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 || out != "" {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s\nwant: %s", code, out, errOut, want)
	}
}

// orgsync sim's start-up mistakes (a state file that is not there, an
// address in use) say what to do, without an internal package's name or
// Go's "listen tcp" text.
func TestSimStartMistakes(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--state", filepath.Join(dir, "nope.yaml")}, "orgsync sim: cannot read the state file: open "},
		{[]string{"sim", "--state", filepath.Join(dir, "sim", "org.yaml"), "--listen", busy.Addr().String()},
			"orgsync sim: cannot serve the simulator on " + busy.Addr().String() + ": another program"},
	} {
		code, _, errOut := runInProcess(c.args...)
		if code != exitError || !strings.HasPrefix(errOut, c.want) || strings.Contains(errOut, "umsim") || strings.Contains(errOut, "listen tcp") {
			t.Errorf("%v: exit %d\n%s\nwant it to start %q", c.args, code, errOut, c.want)
		}
	}
}

// A misspelt command, init --source or demo --source gets the one it was
// likely meant to be.
func TestMisspeltChoicesSuggested(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"pln"}, `orgsync: unknown command "pln" (did you mean "plan"?)`},
		{[]string{"init", "--source", "cvs", "--output", "-"}, `--source "cvs": use one of ` + starter.Kinds() + ` (did you mean "csv"?)`},
		{[]string{"demo", "--source", "ldpa"}, `(did you mean "ldap"?)`},
	} {
		code, _, errOut := runInProcess(c.args...)
		if code != exitError || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d\n%s\nwant %s", c.args, code, errOut, c.want)
		}
	}
	if _, _, errOut := runInProcess("init", "--source", "oracle", "--output", "-"); strings.Contains(errOut, "did you mean") {
		t.Errorf("a stranger gets a suggestion: %s", errOut)
	}
}

// users get of a user the organization does not have, and users list of
// a group it does not have, say so in words, without the service's codes
// or the client's endpoint names.
func TestAdminNotFoundSaysSo(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"users", "get", "nobody@example.com", "--config", cfg}, "orgsync users get: no user nobody@example.com in the organization 1234ABCD@VendorOrg"},
		{[]string{"users", "list", "--group", "Nope", "--config", cfg}, `orgsync users list: no group "Nope" in the organization 1234ABCD@VendorOrg: give a user group`},
	} {
		code, _, errOut := runInProcess(c.args...)
		if code != exitError || !strings.HasPrefix(errOut, c.want) || strings.Contains(errOut, "HTTP 404") || strings.Contains(errOut, "not_found") {
			t.Errorf("%v: exit %d\n%s\nwant %s", c.args, code, errOut, c.want)
		}
	}
}

// TestInitTakesTheKindAsItsArgument: orgsync init ldap is init --source
// ldap, as an administrator types it first; a second argument is refused.
func TestInitTakesTheKindAsItsArgument(t *testing.T) {
	t.Parallel()
	code, out, errOut := runInProcess("init", "ldap", "--output", "-")
	if code != exitOK || !strings.Contains(out, "written by `orgsync init --source ldap`") {
		t.Errorf("init ldap: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := runInProcess("init", "ldap", "csv", "--output", "-"); code != exitError || !strings.Contains(errOut, `unexpected argument "csv"`) {
		t.Errorf("init with two kinds: exit %d\n%s", code, errOut)
	}
}
