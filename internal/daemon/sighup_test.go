package daemon

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestSIGHUPDuringARunSaysItWaits: a SIGHUP that comes while a run is in
// progress is acknowledged at once (the reload itself waits for the run's
// end, so the operator is told it was heard), and the configuration is
// read again as soon as the run ends.
func TestSIGHUPDuringARunSaysItWaits(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zap.InfoLevel)
	path := example(t, "")
	d := newTestDaemon(t, setupOf(t, path, zap.New(core)))
	j := d.job.Load()
	setUnmatchedUsers(t, path, "preserve")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d.running.Lock() // a run in progress
	d.onSIGHUP(ctx)
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "word that the reload waits for the run", func() bool { return logs.FilterMessageSnippet("a run is in progress").Len() > 0 })
	// What must not happen has no moment to wait for: watch for 50 ms.
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if d.job.Load() != j {
			t.Fatal("the configuration was read again while the run was in progress")
		}
	}
	ended := time.Now()
	d.running.Unlock() // the run ends
	waitFor(t, "the configuration read again after the run", func() bool { return d.job.Load() != j })
	if read := logs.FilterMessageSnippet("reading the configuration again").All(); len(read) != 1 || read[0].Time.Before(ended) {
		t.Errorf("the configuration was read again while the run was in progress: %v", read)
	}
}
