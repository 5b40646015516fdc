package daemon

import (
	"context"
	"testing"

	"go.uber.org/zap"
)

// TestSetupReloadReadsTheConfigurationAgain: a value on Setup.Reload (the
// Windows service's parameter-change control) reloads as SIGHUP does.
func TestSetupReloadReadsTheConfigurationAgain(t *testing.T) {
	t.Parallel()
	path := example(t, "")
	s := setupOf(t, path, zap.NewNop())
	reload := make(chan struct{})
	s.Reload = reload
	d := newTestDaemon(t, s)
	j := d.job.Load()
	setUnmatchedUsers(t, path, "preserve")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d.onSIGHUP(ctx)
	if d.job.Load() != j {
		t.Fatal("the configuration was read again before the reload")
	}
	reload <- struct{}{}
	waitFor(t, "the configuration read again", func() bool { return d.job.Load() != j })
}
