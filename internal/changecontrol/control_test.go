package changecontrol

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/demo"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/util/memlimit"
	"github.com/orgsync/orgsync/target/umsim"
)

// csvExample starts the demo of the CSV example (the simulator of the
// example organizations over loopback HTTP, until the test ends), with a
// removal limit of 1 and, withState, the state directory the demo gives
// it, and returns the configuration's path and the simulator.
func csvExample(t *testing.T, withState bool) (string, *umsim.Multi) {
	t.Helper()
	d, err := demo.Start(context.Background(), demo.Examples()["csv"], io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	rewrite(t, d.Config, "maxRemovals: 50%", "maxRemovals: 1")
	if !withState {
		rewrite(t, d.Config, demo.StateSection, "")
	}
	return d.Config, d.Sim
}

func load(t *testing.T, path string) *config.Config {
	t.Helper()
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// syncOnce runs cfg once in mode with c as the observer.
func syncOnce(t *testing.T, c *Control, cfg *config.Config, mode run.Mode) []*run.Result {
	t.Helper()
	j, err := run.New(cfg, run.Overrides{}, run.Options{Observer: c})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := j.Sync(context.Background(), mode, nil)
	return res
}

func TestHoldKeepsTheRemovalsAndAppliesTheRest(t *testing.T) {
	t.Parallel()
	path, _ := csvExample(t, true)
	cfg := load(t, path)
	c := New(cfg, zap.NewNop())
	res := syncOnce(t, c, cfg, run.Real)
	if res[0].Err != nil || res[0].ByKind["create"] == 0 {
		t.Fatalf("held run: err %v, applied %v; want the creates applied and no error", res[0].Err, res[0].ByKind)
	}
	held := res[0].Decision
	if held.Created == nil || len(held.Created.Changes) != 2 || len(held.Pending) != 1 {
		t.Fatalf("held %+v, want one approval of the two removals", held)
	}
	// The next run holds nothing new, and records both runs and the history.
	c2 := New(cfg, zap.NewNop())
	h := syncOnce(t, c2, cfg, run.Real)[0].Decision
	if h.Created != nil || len(h.Pending) != 1 || h.Pending[0].ID != held.Created.ID {
		t.Errorf("second run: %+v, want the first approval pending and nothing new", h)
	}
	dir := c2.StateDir()
	runs, _ := dir.Runs(0)
	entries, _ := dir.History(store.Filter{User: "dave@example.com"})
	if len(runs) != 2 || runs[0].Result != store.RunHeld || len(entries) != 1 || entries[0].Result != store.ResultApplied {
		t.Errorf("runs %+v, dave's history %+v", runs, entries)
	}
	if runs[0].PeakMemoryMiB == 0 {
		t.Errorf("run record without its peak memory: %+v", runs[0])
	}
}

// TestRecordSaysNearTheMemoryLimit: the run record carries the run's peak
// memory, the limit, and whether it came near it (the status page shows
// it).
func TestRecordSaysNearTheMemoryLimit(t *testing.T) {
	t.Parallel()
	r := &run.Result{Org: &config.NamedTarget{Name: "main"}, Mode: run.Real, Memory: memlimit.Usage{Peak: 900 << 20, Bound: 1 << 30}}
	rec, _ := record(r, nil, store.Settings{}, "sync")
	if rec.PeakMemoryMiB != 900 || rec.MemoryLimitMiB != 1024 || !rec.NearMemoryLimit {
		t.Errorf("record %+v", rec)
	}
	r.Memory.Peak = 200 << 20
	if rec, _ := record(r, nil, store.Settings{}, "sync"); rec.NearMemoryLimit {
		t.Errorf("record %+v: 200 MiB of 1024 is not near", rec)
	}
}

func TestStopAppliesNothing(t *testing.T) {
	t.Parallel()
	path, sim := csvExample(t, false)
	rewrite(t, path, "maxRemovals: 1", "maxRemovals: 1\n  onLimit: stop")
	cfg := load(t, path)
	res := syncOnce(t, New(cfg, zap.NewNop()), cfg, run.Real)
	if res[0].Err == nil || !strings.Contains(res[0].Err.Error(), "(safety.onLimit: stop): nothing sent, every change withheld") {
		t.Errorf("stopped run: %v", res[0].Err)
	}
	for _, u := range sim.Org(cfg.Primary().OrgID).Snapshot().Users {
		if u.Email == "dave@example.com" {
			t.Error("a stopped run created dave")
		}
	}
}

func rewrite(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s lacks %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
}
