package restapi

import (
	"context"
	"time"
)

// Clock is the time a client measures its waits on and spends them in:
// the pause a rate-limit window asks for, the wait before a retry, its
// own rate limit. The wall clock unless Options.Clock says otherwise;
// tests give the client and the fake API they read one clock that
// advances when the client waits, so that a wait costs them nothing.
type Clock interface {
	Now() time.Time
	// Sleep waits d, or until ctx ends (returning its error).
	Sleep(ctx context.Context, d time.Duration) error
}

// wallClock is the real time.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
