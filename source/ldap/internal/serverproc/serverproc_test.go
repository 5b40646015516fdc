package serverproc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Retry starts again on new ports while a port was taken, up to three
// times, and returns other errors at once.
func TestRetry(t *testing.T) {
	t.Parallel()
	var seen [][]string
	taken := fmt.Errorf("%w: bind: address already in use", ErrPortTaken)
	err := Retry(2, func(ports []string) error {
		seen = append(seen, ports)
		if len(seen) < 3 {
			return taken
		}
		return nil
	})
	if err != nil || len(seen) != 3 {
		t.Fatalf("Retry: %v after %d starts, want success at the third", err, len(seen))
	}
	for _, ports := range seen {
		if len(ports) != 2 || ports[0] == ports[1] {
			t.Errorf("ports %q: want two distinct ports", ports)
		}
	}
	calls := 0
	if err := Retry(1, func([]string) error { calls++; return taken }); !errors.Is(err, ErrPortTaken) || calls != 3 {
		t.Errorf("always taken: %v after %d starts, want ErrPortTaken after 3", err, calls)
	}
	other := errors.New("no such schema")
	calls = 0
	if err := Retry(1, func([]string) error { calls++; return other }); err != other || calls != 1 {
		t.Errorf("another error: %v after %d starts, want it after 1", err, calls)
	}
}

// A process's output is kept, WaitUp returns when the process exits, and
// PortTaken recognizes the servers' words.
func TestProcess(t *testing.T) {
	t.Parallel()
	p, err := Start(exec.Command("sh", "-c", "echo 'daemon: bind(8) failed errno=98 (Address already in use)'; exit 1"))
	if err != nil {
		t.Fatal(err)
	}
	err = p.WaitUp(10*time.Second, func() error { return errors.New("not yet") })
	if err == nil || !strings.Contains(err.Error(), "exited") {
		t.Errorf("WaitUp: %v, want the exit", err)
	}
	if !p.PortTaken() || !strings.Contains(p.Logs(), "errno=98") {
		t.Errorf("PortTaken %t, logs %q", p.PortTaken(), p.Logs())
	}
	p.Stop(time.Second) // after the exit: no wait
	ports, err := FreePorts(3)
	if err != nil || len(slices.Compact(slices.Sorted(slices.Values(ports)))) != 3 {
		t.Errorf("FreePorts(3) = %q, %v", ports, err)
	}
}

// Cached makes a directory once, where it is told, and later calls use it;
// a failed make leaves nothing behind.
func TestCached(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	makes := 0
	build := func(dir, final string) error {
		makes++
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "conf"), []byte("path "+final), 0o600)
	}
	for range 2 {
		got, err := Cached(cache, "domain-abc", build)
		if err != nil || got != filepath.Join(cache, "domain-abc") {
			t.Fatalf("Cached = %q, %v", got, err)
		}
		if b, _ := os.ReadFile(filepath.Join(got, "conf")); string(b) != "path "+got {
			t.Errorf("conf = %q, want the final path in it", b)
		}
	}
	if makes != 1 {
		t.Errorf("made %d times, want once", makes)
	}
	if _, err := Cached(cache, "domain-bad", func(string, string) error { return errors.New("provisioning failed") }); err == nil {
		t.Error("a failed make is not reported")
	}
	if left, _ := filepath.Glob(filepath.Join(cache, "*")); len(left) != 1 {
		t.Errorf("left in the cache: %q, want the one made", left)
	}
}

// Run tells a port taken meanwhile (to start again elsewhere) from any
// other failure, which it reports with the server's words.
func TestRun(t *testing.T) {
	t.Parallel()
	notYet := func() error { return errors.New("not yet") }
	_, err := Run(exec.Command("sh", "-c", "echo 'PR_Bind() failed: Local Network address is in use.'; exit 1"), 10*time.Second, notYet)
	if !errors.Is(err, ErrPortTaken) {
		t.Errorf("port in use: %v, want ErrPortTaken", err)
	}
	_, err = Run(exec.Command("sh", "-c", "echo 'no such schema file'; exit 1"), 10*time.Second, notYet)
	if err == nil || errors.Is(err, ErrPortTaken) || !strings.Contains(err.Error(), "sh did not start") || !strings.Contains(err.Error(), "no such schema file") {
		t.Errorf("other failure: %v", err)
	}
	p, err := Run(exec.Command("sleep", "60"), 10*time.Second, func() error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	p.Stop(time.Second)
	select {
	case <-p.Done():
	default:
		t.Error("Stop returned before the server exited")
	}
}
