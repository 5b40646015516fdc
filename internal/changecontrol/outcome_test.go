package changecontrol

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/store"
)

// quietView shows nothing of an approval being decided.
type quietView struct{}

func (quietView) Approval(*store.Approval) {}
func (quietView) Release(*run.Gated) bool  { return true }
func (quietView) NotApplied()              {}

// TestFailedApproveLeavesItsOutcome: approving as the status page does
// (the daemon's decide calls Approve) while the source cannot be read
// fails in phase sources, and leaves every outcome: a Result with the
// error and phase (the daemon's metrics count it), a run record of mode
// approve naming the approval (the status page and the report show it),
// the approval still pending with the attempt noted in it (who, when,
// which run, where and why), and an error log line saying so.
func TestFailedApproveLeavesItsOutcome(t *testing.T) {
	t.Parallel()
	path, _ := csvExample(t, true)
	cfg := load(t, path)
	held := syncOnce(t, New(cfg, zap.NewNop()), cfg, run.Real)[0].Decision.Created
	if held == nil {
		t.Fatal("the sync held nothing")
	}
	csv := filepath.Join(filepath.Dir(path), "users.csv")
	if err := os.Rename(csv, csv+".moved"); err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zapcore.InfoLevel)
	c := New(cfg, zap.New(core))
	j, err := run.New(cfg, run.Overrides{}, run.Options{Observer: c})
	if err != nil {
		t.Fatal(err)
	}
	ops := store.Decider{By: "ops", Via: "status page (basic authentication)"}
	res, err := c.Approve(context.Background(), j, held.ID, quietView{}, ApproveOptions{By: ops})
	if err == nil || res == nil || res.Err == nil || res.Phase != run.PhaseSources {
		t.Fatalf("approve with the source moved away: %v, result %+v; want a failed Result in phase sources", err, res)
	}
	runs, _ := c.StateDir().Runs(0)
	if last := runs[len(runs)-1]; len(runs) != 2 || last.Mode != ModeApprove || last.Result != store.RunFailure ||
		last.Phase != run.PhaseSources || last.Approval != held.ID {
		t.Errorf("run records %+v, want the failed approve of %s last", runs, held.ID)
	}
	a, err := c.StateDir().Approval(held.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != store.Pending || len(a.Attempts) != 1 || a.Attempts[0].Decided != ops || a.Attempts[0].Phase != run.PhaseSources ||
		a.Attempts[0].Run != res.Run || a.Attempts[0].Error == "" {
		t.Errorf("the approval after the failed approve: %s, attempts %+v", a.Status, a.Attempts)
	}
	if pending, _ := c.StateDir().Approvals("", store.Pending); len(pending) != 1 {
		t.Errorf("%d pending approvals after noting the attempt, want 1", len(pending))
	}
	logged := logs.FilterMessageSnippet("approving failed").FilterField(zap.String("approval", held.ID)).All()
	if len(logged) != 1 || logged[0].Level != zapcore.ErrorLevel {
		t.Errorf("log lines of the failed approve: %v", logs.All())
	}
	if got := c.Heard(); got != 1 {
		t.Errorf("the Control heard %d outcomes, want 1", got)
	}
}
