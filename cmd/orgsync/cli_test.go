package main

import (
	"bytes"
	"context"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

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

// TestVersionLine: the commit and its time come from the build's
// version-control stamp (a git build never says "unknown"), the linker's
// commit is the fallback, and unknown parts are left out.
func TestVersionLine(t *testing.T) {
	stamped := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "9cfff093f44ce13ad13b3cd45705edf1e5fa7c7e"},
		{Key: "vcs.time", Value: "2026-11-23T09:21:01Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	tests := []struct {
		version, commit, date string
		bi                    *debug.BuildInfo
		want                  string
	}{
		{"v1.2.0", "", "2026-11-23T10:00:00Z", stamped,
			"orgsync v1.2.0 (commit 9cfff093f44c-dirty of 2026-11-23T09:21:01Z, built 2026-11-23T10:00:00Z, go1.26.8)"},
		{"dev", "abc123", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			"orgsync dev (commit abc123, go1.26.8)"},
		{"dev", "", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.3.0"}},
			"orgsync v1.3.0 (go1.26.8)"},
		{"dev", "", "", nil, "orgsync dev"},
	}
	for _, tt := range tests {
		if got := versionLine(tt.version, tt.commit, tt.date, tt.bi); got != tt.want {
			t.Errorf("versionLine(%q, %q, %q) = %q, want %q", tt.version, tt.commit, tt.date, got, tt.want)
		}
	}
}
