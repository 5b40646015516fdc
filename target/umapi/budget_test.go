package umapi

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
)

// spend sends n reads with c (each also counts for the application).
func spend(t *testing.T, c *Client, n int) {
	t.Helper()
	for range n {
		if _, err := c.OrgUsersPage(context.Background(), 0, OrgUsersOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSharedLimitsAcrossProcesses: two clients of one integration (two
// processes: a plan, then the sync right after it) each start with the
// full allowance, and the second draws 429s from the service's window
// the first filled; sharing the windows through a folder, the second
// waits for what is left and draws none. With reads per organization
// and requests per application, and clients of two organizations of one
// integration share the application's window.
func TestSharedLimitsAcrossProcesses(t *testing.T) {
	t.Parallel()
	const window = 2 * time.Second
	for _, shared := range []bool{false, true} {
		e := newSimEnv(t, testState(5), umsim.Options{Limits: gate.Limits{Read: 100, App: 6, Window: window}})
		dir := t.TempDir()
		process := func() *Client {
			cfg := e.config(AuthOAuth)
			cfg.ReadLimit, cfg.AppLimit, cfg.LimitWindow, cfg.RetryWaitMin, cfg.RetryWaitMax = 100, 6, window, 100*time.Millisecond, time.Second
			var opts []Option
			if shared {
				opts = append(opts, WithSharedLimits(dir))
			}
			return mustClient(t, cfg, opts...)
		}
		start := time.Now()
		spend(t, process(), 6)
		spend(t, process(), 6)
		got := e.sim.Stats().TooManyRequests
		switch {
		case !shared && got == 0:
			t.Errorf("not shared: no 429, so the test shows nothing (the simulator's window is not what it should be)")
		case shared && got != 0:
			t.Errorf("shared: %d answers 429", got)
		case shared && time.Since(start) < window:
			t.Errorf("shared: 12 requests in %s, under the window of 6", time.Since(start))
		}
	}
}

// TestSharedLimitsFileProblems: a file written by a newer orgsync is left
// alone, and one the client cannot write: the client says so once and
// counts its own requests; a damaged file is started again.
func TestSharedLimitsFileProblems(t *testing.T) {
	t.Parallel()
	e := newSimEnv(t, testState(5), umsim.Options{})
	cfg := e.config(AuthOAuth)
	for name, content := range map[string]string{"newer format": `{"version":99,"windows":{}}`, "damaged": `{"version":1,"windows":`} {
		dir := t.TempDir()
		path := filepath.Join(dir, budgetFileName(cfg.withDefaults()))
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		core, logs := observer.New(zap.WarnLevel)
		c := mustClient(t, cfg, WithSharedLimits(dir), WithLogger(zap.New(core)))
		spend(t, c, 3)
		after, _ := os.ReadFile(path)
		warned := logs.FilterMessageSnippet("cannot be shared").Len()
		switch name {
		case "newer format":
			if string(after) != content || warned != 1 {
				t.Errorf("%s: the file became %q, %d warnings; want it untouched and one warning", name, after, warned)
			}
		case "damaged":
			if !strings.Contains(string(after), `"requests"`) || warned != 0 {
				t.Errorf("%s: the file became %q, %d warnings; want it started again, no warning", name, after, warned)
			}
		}
	}
}
