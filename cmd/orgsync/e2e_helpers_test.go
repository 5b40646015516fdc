package main

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/demo"
	"github.com/orgsync/orgsync/internal/demo/simserver"
	"github.com/orgsync/orgsync/target/umsim"
)

// binary is the orgsync binary the end-to-end tests run, built by TestMain.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "orgsync-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "orgsync")
	out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building orgsync: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what one run of the binary did.
type result struct {
	stdout, stderr string
	code           int
	cpu            time.Duration  // the process's CPU time, user and system
	signal         syscall.Signal // the signal that killed it, if one did
}

// runBinary runs orgsync with args and a timeout of a minute; env adds
// variables.
func runBinary(t testing.TB, env []string, args ...string) result {
	t.Helper()
	return runBinaryFor(t, time.Minute, env, args...)
}

// runBinaryFor runs orgsync with args, killed after timeout.
func runBinaryFor(t testing.TB, timeout time.Duration, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(timeout):
		_ = cmd.Process.Kill()
		t.Fatalf("orgsync %s: timed out\nstderr:\n%s", strings.Join(args, " "), stderr.String())
	}
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if ps := cmd.ProcessState; ps != nil {
		r.cpu = ps.UserTime() + ps.SystemTime()
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	recordGolden(t, args, r.stdout)
	return r
}

// sim is a simulator serving over loopback HTTP in the test process.
type sim struct {
	*umsim.Server
	url string
}

// startSim serves the example organization with opts.
func startSim(t testing.TB, dir string, opts umsim.Options) *sim {
	t.Helper()
	st, err := umsim.LoadState(filepath.Join(dir, "sim", "org.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := umsim.New(st, opts)
	if err != nil {
		t.Fatal(err)
	}
	return &sim{Server: srv, url: serve(t, srv)}
}

// multiSim is a simulator of several organizations serving over loopback
// HTTP in the test process.
type multiSim struct {
	*umsim.Multi
	url string
}

// startMultiSim serves the organizations of the seed file (relative to
// dir) with opts, each organization with limits of its own.
func startMultiSim(t testing.TB, dir, seed string, opts umsim.Options) *multiSim {
	t.Helper()
	m, err := simserver.Load(filepath.Join(dir, seed), opts)
	if err != nil {
		t.Fatal(err)
	}
	return &multiSim{Multi: m, url: serve(t, m)}
}

// serve serves h over loopback HTTP until the test ends and returns its
// address.
func serve(t testing.TB, h http.Handler) string {
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs.URL
}

// exampleDir copies the embedded examples into a fresh directory (secret
// files readable by their owner only) and returns it.
func exampleDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := demo.CopyExamples(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// configFor rewrites example's configuration to point at url, with limits
// high enough not to wait, applies the replacements (old, new pairs) and
// returns its path.
func configFor(t testing.TB, dir, example, url string, replace ...string) string {
	t.Helper()
	path := filepath.Join(dir, example, "orgsync.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), "http://127.0.0.1:8080", url)
	// The simulators of these tests enforce no limits: no waiting.
	text = strings.Replace(text, "target:\n", "target:\n  limits: {reads: 6000, requests: 6000}\n", 1)
	text = strings.NewReplacer(replace...).Replace(text)
	out := filepath.Join(dir, example, "test.yaml")
	if err := os.WriteFile(out, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}
