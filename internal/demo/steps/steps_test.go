package steps

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/changecontrol"
	"github.com/orgsync/orgsync/internal/demo"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/store"
)

// start runs the demo of example (the simulator over loopback HTTP until
// the test ends); prepare, when set, rewrites its configuration first. It
// returns the job of the configuration and its change control.
func start(t *testing.T, example string, prepare func(string) error) (*run.Job, *changecontrol.Control) {
	t.Helper()
	d, err := demo.Start(context.Background(), demo.Examples()[example], io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	if prepare != nil {
		if err := prepare(d.Config); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Load(d.Config)
	if err != nil {
		t.Fatal(err)
	}
	c := changecontrol.New(cfg, zap.NewNop())
	j, err := run.New(cfg, run.Overrides{}, run.Options{Observer: c, PlansShown: true})
	if err != nil {
		t.Fatal(err)
	}
	return j, c
}

// TestWalkConverges: the multi-organization example is planned, synced
// into both organizations, and planned again with nothing to do.
func TestWalkConverges(t *testing.T) {
	t.Parallel()
	j, c := start(t, "multiorg", nil)
	var out bytes.Buffer
	if err := Walk(context.Background(), &out, j, c); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	text := out.String()
	for _, want := range []string{"== 1. orgsync plan", "== 2. orgsync sync", "== 3. orgsync plan again", "main: applied: ", "emea: applied: ", "+0/-0 memberships"} {
		if !strings.Contains(text, want) {
			t.Errorf("the walk lacks %q:\n%s", want, text)
		}
	}
}

// TestReviewHoldsApprovesAndRecords: the review holds the removals over
// the limit of 1, applies them on approval, and leaves the history, the
// report, the status page and the saved plan behind.
func TestReviewHoldsApprovesAndRecords(t *testing.T) {
	t.Parallel()
	r := &Review{Version: "test"}
	j, c := start(t, "csv", r.Prepare)
	t.Cleanup(func() { os.RemoveAll(r.dir) })
	var out bytes.Buffer
	if err := r.Steps(context.Background(), &out, j, c); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "held for approval: ") {
		t.Errorf("no removal held:\n%s", out.String())
	}
	entries, err := c.StateDir().History(store.Filter{})
	if err != nil || len(entries) == 0 {
		t.Fatalf("history: %d entries, %v", len(entries), err)
	}
	approved := 0
	for _, e := range entries {
		if e.Approval != "" {
			approved++
		}
	}
	if approved == 0 {
		t.Errorf("no history entry names the approval:\n%s", out.String())
	}
	for _, f := range []string{"plan.json", "report.html", "status.html"} {
		if _, err := os.Stat(filepath.Join(r.dir, f)); err != nil {
			t.Errorf("the review left no %s: %v", f, err)
		}
	}
}
