package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/daemon"
	"github.com/orgsync/orgsync/target/umsim"
)

// TestASecretCommandsStandardErrorStaysLocal replays the standard error
// part of finding 5 of issue 33: a secret command that fails quoting a
// vault token on its standard error. The run record, the notification
// and /healthz say which command failed and its exit code, never the
// token; the command's standard error and the daemon's log line carry
// it, on this machine only.
func TestASecretCommandsStandardErrorStaysLocal(t *testing.T) {
	t.Parallel()
	const token = "hvs.CAESIJ-leaked-vault-token"
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	h := startHooks(t)
	script := filepath.Join(dir, "csv", "get-secret.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"permission denied for "+token+"\" >&2\nexit 3\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := configFor(t, dir, "csv", s.url, "clientSecret: {file: ../sim/demo-client-secret}", "clientSecret: {exec: [./get-secret.sh]}",
		"maxRemovals: 50%", "maxRemovals: 50%\nstate:\n  dir: state\nnotify:\n  webhooks:\n    - url: "+h.urlRef(t))
	r := runBinary(t, nil, "sync", "--config", cfg)
	if r.code != exitError || strings.Count(r.stderr, token) != 1 || !strings.Contains(r.stderr, "failed with exit code 3") {
		t.Errorf("sync: exit %d, the token said %d times on its standard error (want once, locally)\n%s", r.code, strings.Count(r.stderr, token), r.stderr)
	}
	runs, err := os.ReadFile(filepath.Join(dir, "csv", "state", "runs.jsonl"))
	if err != nil || strings.Contains(string(runs), token) || !strings.Contains(string(runs), "exit code 3") {
		t.Errorf("runs.jsonl (%v):\n%s", err, runs)
	}
	waitFor(t, "the failure notification", 10*time.Second, func() bool { return len(h.events()) > 0 })
	for _, e := range h.events() {
		if b, _ := json.Marshal(e); strings.Contains(string(b), token) || !strings.Contains(string(b), "exit code 3") {
			t.Errorf("notification %s", b)
		}
	}

	appendFile(t, cfg, fmt.Sprintf("schedule:\n  cron: \"@every 1s\"\n  allowFrequentSchedule: true\n  listen: %q\n", anyPort))
	stderr, stop := startDaemonInProcess(cfg)
	defer stop()
	addr := listening(t, stderr)
	var health daemon.Health
	waitFor(t, "a failed run in /healthz", 20*time.Second, func() bool {
		code, body := get("http://" + addr + "/healthz")
		return code == 200 && json.Unmarshal([]byte(body), &health) == nil && health.Status == "failing"
	})
	for _, path := range []string{"/healthz", "/api/runs"} {
		if code, body := get("http://" + addr + path); strings.Contains(body, token) || code != 200 {
			t.Errorf("%s: %d %s", path, code, body)
		}
	}
	waitFor(t, "the failure in the daemon's log", 10*time.Second, func() bool { return strings.Contains(stderr.String(), `"errorDetail":`) })
	if !strings.Contains(stderr.String(), token) {
		t.Errorf("the daemon's log lacks the command's standard error:\n%s", stderr.String())
	}
}
