package daemon

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/orgsync/orgsync/internal/run"
)

// TestSIGHUPDuringARunSaysItWaits: a SIGHUP that comes while a run is in
// progress is acknowledged at once (the reload itself waits for the run's
// end, so the operator is told it was heard), and the configuration is
// read again as soon as the run ends.
func TestSIGHUPDuringARunSaysItWaits(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	reloaded := make(chan struct{}, 1)
	d := &daemon{log: zap.New(core), opts: Options{Reload: func(context.Context) *run.Job { reloaded <- struct{}{}; return nil }}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d.running.Lock() // a run in progress
	d.onSIGHUP(ctx)
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); logs.FilterMessageSnippet("a run is in progress").Len() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no word that the reload waits for the run; logs: %v", logs.All())
		}
	}
	select {
	case <-reloaded:
		t.Fatal("the configuration was read again while the run was in progress")
	case <-time.After(50 * time.Millisecond):
	}
	d.running.Unlock() // the run ends
	select {
	case <-reloaded:
	case <-time.After(5 * time.Second):
		t.Fatal("the configuration was not read again after the run")
	}
}
