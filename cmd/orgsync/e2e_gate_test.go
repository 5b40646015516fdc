package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/demo"
	"github.com/orgsync/orgsync/internal/demo/simserver"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/target/umsim"
)

// countingSim serves the example organization (dir/sim/org.yaml) over
// loopback HTTP, counting what it is asked to change.
func countingSim(t *testing.T, dir string) (*sim, *simserver.Changes) {
	t.Helper()
	st, err := umsim.LoadState(filepath.Join(dir, "sim", "org.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := umsim.New(st, umsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, changes := simserver.Count(srv)
	return &sim{Server: srv, url: serve(t, h)}, changes
}

// trippedConfig is the CSV example over a limit of 1 removal with onLimit
// and a state directory, revoking the pending invite of gone@gmail.com,
// who is in no source: its plan has 3 destructive changes (bob's Design,
// mallory's groups, gone's invite). It returns the configuration, the
// counts of the simulator and the simulator.
func trippedConfig(t *testing.T, onLimit string) (string, *simserver.Changes, *sim) {
	t.Helper()
	dir := exampleDir(t)
	appendFile(t, filepath.Join(dir, "sim", "org.yaml"), fmt.Sprintf("invites:\n  - {email: gone@gmail.com, lastSentDTS: %d, groups: [Design]}\n",
		time.Now().Add(-time.Hour).UnixMilli()))
	s, changes := countingSim(t, dir)
	cfg := configFor(t, dir, "csv", s.url, "maxRemovals: 50%", "maxRemovals: 1\n  onLimit: "+onLimit+"\nstate:\n  dir: state",
		"unmatchedUsers: remove-groups", "unmatchedUsers: remove-groups\n  invites: {revokeUnmatched: true}")
	return cfg, changes, s
}

// TestNoWriterPassesATrippedLimit: every command that can send changes,
// run against an organization whose plan exceeds its limit, sends no
// destructive request, whether onLimit is stop or hold: sync, sync
// --test-only, plan --out then apply, approve (listing), the daemon,
// invites (list, resend, and under hold a revoke an approval holds). Under
// hold, approving then sends the approval's changes, and no other.
func TestNoWriterPassesATrippedLimit(t *testing.T) {
	t.Parallel()
	for _, onLimit := range []string{"stop", "hold"} {
		t.Run(onLimit, func(t *testing.T) {
			cfg, changes, s := trippedConfig(t, onLimit)
			run := func(args ...string) result {
				t.Helper()
				r := runBinary(t, nil, append(args, "--config", cfg)...)
				if n := changes.Destructive(); n != 0 {
					t.Fatalf("orgsync %s sent %d destructive steps over the limit (onLimit %s), want 0\n%s\n%s",
						strings.Join(args, " "), n, onLimit, r.stdout, r.stderr)
				}
				return r
			}
			wantSync := map[string]int{"stop": exitError, "hold": exitOK}[onLimit]
			if r := run("sync"); r.code != wantSync {
				t.Errorf("sync: exit %d, want %d\n%s", r.code, wantSync, r.stderr)
			}
			if onLimit == "stop" && changes.Writes() != 0 {
				t.Errorf("a stopped sync sent %d requests that change something, want 0", changes.Writes())
			}
			run("sync", "--test-only")
			saved := filepath.Join(filepath.Dir(cfg), "plan.json")
			run("plan", "--out", saved)
			run("apply", saved)
			run("approve")
			run("invites", "list")
			run("invites", "resend", "gone@gmail.com")
			daemonRunsOnce(t, cfg)
			if n := changes.Destructive(); n != 0 {
				t.Fatalf("the daemon sent %d destructive steps over the limit, want 0", n)
			}
			if onLimit == "stop" {
				return
			}
			r := run("invites", "revoke", "gone@gmail.com")
			if r.code != exitError || !strings.Contains(r.stderr, "holds the revoke of gone@gmail.com's invite") {
				t.Errorf("invites revoke of a held revoke: exit %d\n%s", r.code, r.stderr)
			}
			id := heldID.FindStringSubmatch(run("sync").stdout)
			if id == nil {
				t.Fatal("no approval listed after the held syncs")
			}
			a := approvalOf(t, cfg, id[1])
			r = runBinary(t, nil, "approve", id[1], "--yes", "--config", cfg)
			if r.code != exitOK || changes.Destructive() != len(a.Changes) {
				t.Errorf("approve %s: exit %d, %d destructive steps sent, want the approval's %d\n%s%s", id[1], r.code,
					changes.Destructive(), len(a.Changes), r.stdout, r.stderr)
			}
			if len(s.Snapshot().Invites) != 0 {
				t.Errorf("the approved revoke was not sent: invites %v", s.Snapshot().Invites)
			}
		})
	}
}

// approvalOf reads approval id of the configuration's state directory.
func approvalOf(t *testing.T, cfg, id string) *store.Approval {
	t.Helper()
	st, err := store.Open(filepath.Join(filepath.Dir(cfg), "state"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := st.Approval(id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// daemonRunsOnce runs the daemon with cfg until its run at start is
// recorded, then stops it.
func daemonRunsOnce(t *testing.T, cfg string) {
	t.Helper()
	daemonCfg := filepath.Join(filepath.Dir(cfg), "daemon.yaml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	extra := fmt.Sprintf("schedule:\n  cron: \"@every 1h\"\n  allowFrequentSchedule: true\n  listen: %q\n", anyPort)
	if err := os.WriteFile(daemonCfg, append(data, extra...), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd, stderr := startBinary(t, "daemon", "--config", daemonCfg, "--run-at-start", "--log-format", "json")
	addr := listening(t, stderr)
	waitFor(t, "the daemon's run", 30*time.Second, func() bool { return lastRunOf("http://"+addr) != nil })
	if code := stopBinary(t, cmd); code != exitOK {
		t.Errorf("daemon exit %d\n%s", code, stderr.String())
	}
}

// TestDemoStepsKeepATrippedLimit: the demo's steps (what orgsync demo
// runs on its simulator) over a limit of 1 removal send no destructive
// request: with onLimit stop nothing at all, and the demo fails; with
// hold the safe changes, the removals held. (demo --review's approve step
// is TestDemoReview's.)
func TestDemoStepsKeepATrippedLimit(t *testing.T) {
	t.Parallel()
	for _, onLimit := range []string{"stop", "hold"} {
		t.Run(onLimit, func(t *testing.T) {
			ctx := context.Background()
			d, err := demo.Start(ctx, demo.Examples()["csv"], io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			rewrite(t, d.Config, "maxRemovals: 50%", "maxRemovals: 1\n  onLimit: "+onLimit) // the demo gives the example a state.dir
			var out, errs bytes.Buffer
			err = demoSteps(ctx, stdio{out: &out, err: &errs}, &logFlags{level: "warn", format: "json"}, d, nil)
			if (err == nil) != (onLimit == "hold") || d.Changes.Destructive() != 0 || (onLimit == "stop" && d.Changes.Writes() != 0) {
				t.Errorf("demo over the limit (%s): %v, %d destructive steps of %d writes\n%s", onLimit, err, d.Changes.Destructive(), d.Changes.Writes(), out.String())
			}
		})
	}
}
