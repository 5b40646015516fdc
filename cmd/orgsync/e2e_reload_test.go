package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/daemon/statuspage"
	"github.com/orgsync/orgsync/target/umsim"
)

// TestDaemonReloadsConfiguration: the daemon reads its configuration
// again at SIGHUP and before each run; a configuration that no longer
// loads keeps the last good one running, and shows on the status page, in
// the metrics and in a notification, once; fixed (with the removal limit
// raised), the next scheduled run takes it without a signal, and the
// removals held for approval stay held: raising the limit approves
// nothing.
func TestDaemonReloadsConfiguration(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	h := startHooks(t)
	cfg := heldConfig(t, dir, s.url, "")
	appendFile(t, cfg, fmt.Sprintf("notify:\n  webhooks: [{url: %s}]\nschedule:\n  cron: \"@every 3s\"\n  allowFrequentSchedule: true\n  listen: %q\n", h.urlRef(t), anyPort))
	cmd, stderr := startBinary(t, "daemon", "--config", cfg, "--run-at-start", "--log-format", "json")
	base := "http://" + listening(t, stderr)
	status := func() statuspage.Status {
		var st statuspage.Status
		_, body := get(base + "/api/runs")
		_ = json.Unmarshal([]byte(body), &st)
		return st
	}
	waitFor(t, "the first run, holding removals", 20*time.Second, func() bool { return len(status().Pending) == 1 })

	// Broken: the last good configuration stays; the problem is shown and notified once.
	rewrite(t, cfg, "unmatchedUsers: remove-groups", "unmatchedUsers: sometimes")
	for i := range 2 {
		if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		waitFor(t, fmt.Sprintf("reload %d to fail", i+1), 10*time.Second, func() bool {
			_, m := get(base + "/metrics")
			return metricValue(m, `orgsync_config_reloads_total{result="failure"}`) >= float64(i+1)
		})
	}
	waitFor(t, "the problem on the status page", 10*time.Second, func() bool {
		return strings.Contains(status().ConfigProblem, "policy.unmatchedUsers")
	})
	_, page := get(base + "/")
	if !strings.Contains(page, `id="config-problem"`) || !strings.Contains(page, "sometimes") {
		t.Errorf("the status page does not show the problem:\n%s", page)
	}
	_, m := get(base + "/metrics")
	if metricValue(m, "orgsync_config_loaded") != 0 || metricValue(m, `orgsync_config_reloads_total{result="failure"}`) < 2 {
		t.Errorf("reload metrics:\n%s", grepLines(m, "orgsync_config"))
	}
	waitFor(t, "the config-error notification", 10*time.Second, func() bool { return len(h.events()) > 0 })

	// Fixed, with the removal limit raised: the next scheduled run reads it.
	rewrite(t, cfg, "unmatchedUsers: sometimes", "unmatchedUsers: remove-groups")
	rewrite(t, cfg, "maxRemovals: 1", "maxRemovals: 0")
	runs := len(status().Runs)
	waitFor(t, "a run with the fixed configuration", 20*time.Second, func() bool {
		st := status()
		return st.ConfigProblem == "" && len(st.Runs) > runs
	})
	if st := status(); len(st.Pending) != 1 {
		t.Errorf("after the fixed run: pending %+v; want the approval still pending", st.Pending)
	}
	if g, _ := groupsOf(s, "mallory@example.com"); !hasFold(g, "Marketing") {
		t.Errorf("raising the limit applied a held removal: mallory has %v", g)
	}
	if !strings.Contains(stderr.String(), "the configuration loads again") {
		t.Errorf("no line saying the configuration loads again:\n%s", stderr.String())
	}
	if stopBinary(t, cmd) != 0 {
		t.Errorf("daemon exit:\n%s", stderr.String())
	}
	// The daemon has delivered its notifications before it exits: count them.
	n := 0
	for _, ev := range h.events() {
		if ev["event"] == "config-error" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d config-error notifications for the same problem, want 1", n)
	}
}

// grepLines returns the lines of text that contain s.
func grepLines(text, s string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
