package serverproc

import (
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// Retry starts again on new ports while a port was taken, up to three
// times, and returns other errors at once.
func TestRetry(t *testing.T) {
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
