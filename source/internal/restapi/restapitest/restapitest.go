// Package restapitest is a clock for the tests of the cloud sources: the
// client (restapi.Options.Clock) and the fake API it reads share it, and
// it moves forward when the client waits, so that a wait the API asks
// for (a rate-limit window, Retry-After, a back-off) costs the test
// nothing and is seen (Slept).
package restapitest

import (
	"context"
	"sync"
	"time"
)

// Clock is a restapi.Clock that advances when it is slept on.
type Clock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

// NewClock returns a clock that starts at the wall clock's now.
func NewClock() *Clock { return &Clock{now: time.Now()} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep moves the clock d forward at once, and notes d (a wait of 0 or
// less is none); a done ctx returns its error instead.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.slept = append(c.slept, d)
	return nil
}

// Slept returns the waits slept so far, in order.
func (c *Clock) Slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.slept...)
}
