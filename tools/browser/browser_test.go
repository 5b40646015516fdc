// Package browser drives orgsync's status page in headless Chromium
// (chromedp), JavaScript off: the page, its banner, approving from it,
// the token login, and the framing it refuses. The built orgsync binary
// runs as a daemon against the simulator over loopback. It is in the
// tools module so that orgsync's own module does not require chromedp.
package browser

import (
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/demo"
	"github.com/orgsync/orgsync/internal/demo/simserver"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/target/umsim"
)

// binary is the orgsync binary under test, built once by TestMain.
var binary string

func TestMain(m *testing.M) {
	os.Exit(withBinary(m))
}

// withBinary builds orgsync into a temporary directory and runs the
// tests.
func withBinary(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "orgsync-browser-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	binary = filepath.Join(tmp, "orgsync")
	// Built in orgsync's own module, with its requirements, as users build it.
	build := exec.Command("go", "build", "-o", binary, "./cmd/orgsync")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build orgsync: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// exitOK is orgsync's exit code for success.
const exitOK = 0

// sim is the simulator of the example organization, served over
// loopback HTTP at url until the test ends.
type sim struct {
	*umsim.Multi
	url string
}

// startSim serves the example organization of the examples copied to dir.
func startSim(t *testing.T, dir string) *sim {
	t.Helper()
	m, err := simserver.Load(filepath.Join(dir, "sim", "org.yaml"), umsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(m)
	t.Cleanup(hs.Close)
	return &sim{Multi: m, url: hs.URL}
}

// groupsOf lists the groups of the user email in the simulator (nil for
// no such user).
func groupsOf(s *sim, email string) []string {
	for _, org := range s.Servers() {
		for _, u := range org.Snapshot().Users {
			if strings.EqualFold(u.Email, email) {
				return u.Groups
			}
		}
	}
	return nil
}

// inGroup reports whether groups holds group, in any case.
func inGroup(groups []string, group string) bool {
	return slices.ContainsFunc(groups, func(g string) bool { return strings.EqualFold(g, group) })
}

// heldSetup is the CSV example copied to a fresh directory, pointed at its
// own simulator, with a removal limit of 1 (its plan removes more, so a
// sync holds removals for approval), a state directory, the status
// section status, and a daemon schedule of an hour on a loopback port of
// its own: cfg is the configuration's path.
type heldSetup struct {
	dir, cfg string
	sim      *sim
}

func newHeldSetup(t *testing.T, status string) *heldSetup {
	t.Helper()
	dir := t.TempDir()
	if err := demo.CopyExamples(dir); err != nil {
		t.Fatal(err)
	}
	h := &heldSetup{dir: dir, cfg: filepath.Join(dir, "csv", "test.yaml"), sim: startSim(t, dir)}
	data, err := os.ReadFile(filepath.Join(dir, "csv", "orgsync.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer("http://127.0.0.1:8080", h.sim.url, "maxRemovals: 50%", "maxRemovals: 1\nstate:\n  dir: state").Replace(string(data))
	// The simulator enforces no limits: no waiting.
	text = strings.Replace(text, "target:\n", "target:\n  limits: {reads: 6000, requests: 6000}\n", 1)
	text += status + "schedule:\n  cron: \"@every 1h\"\n  allowFrequentSchedule: true\n  listen: \"127.0.0.1:0\"\n"
	if err := os.WriteFile(h.cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return h
}

// state opens the state directory of the setup.
func (h *heldSetup) state(t *testing.T) *store.Dir {
	t.Helper()
	st, err := store.Open(filepath.Join(h.dir, "csv", "state"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// approval reads the approval id.
func (h *heldSetup) approval(t *testing.T, id string) *store.Approval {
	t.Helper()
	a, err := h.state(t).Approval(id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// runs reads the run records.
func (h *heldSetup) runs(t *testing.T) []store.Run {
	t.Helper()
	runs, err := h.state(t).Runs(0)
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// daemon is orgsync daemon running in the background with its run at
// start, its log in JSON written to the file logPath, serving at base.
type daemon struct {
	cmd     *exec.Cmd
	logPath string
	base    string
}

// listening is the daemon's log line that names the address it serves.
var listening = regexp.MustCompile(`"msg":"daemon started".*"listen":"([^"]+)"`)

// startDaemon starts the daemon with the configuration cfg and waits
// until it serves.
func startDaemon(t *testing.T, cfg string) *daemon {
	t.Helper()
	log, err := os.CreateTemp(t.TempDir(), "daemon-*.log")
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close() // the daemon has its own copy
	d := &daemon{cmd: exec.Command(binary, "daemon", "--config", cfg, "--run-at-start", "--log-format", "json"), logPath: log.Name()}
	d.cmd.Stderr = log
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.cmd.Process.Kill(); _ = d.cmd.Wait() })
	waitFor(t, "the daemon's address in its log", 20*time.Second, func() bool {
		m := listening.FindStringSubmatch(d.log())
		if m != nil {
			d.base = "http://" + m[1]
		}
		return m != nil
	})
	return d
}

// log is what the daemon has logged so far.
func (d *daemon) log() string {
	data, _ := os.ReadFile(d.logPath)
	return string(data)
}

// stop sends SIGTERM and returns the exit code.
func (d *daemon) stop(t *testing.T) int {
	t.Helper()
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- d.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("orgsync did not stop within 30 s of SIGTERM")
	}
	return d.cmd.ProcessState.ExitCode()
}

// waitFor polls cond every 20 ms until it holds, failing the test after
// timeout.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(timeout); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
