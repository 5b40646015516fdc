package restapitest_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/orgsync/orgsync/source/internal/restapi"
	"github.com/orgsync/orgsync/source/internal/restapi/restapitest"
)

var _ restapi.Clock = (*restapitest.Clock)(nil)

// TestSleepMovesTheClock: a sleep moves the clock forward at once and is
// noted; none is taken when the context is done.
func TestSleepMovesTheClock(t *testing.T) {
	t.Parallel()
	c := restapitest.NewClock()
	start := c.Now()
	began := time.Now()
	if err := c.Sleep(context.Background(), time.Hour); err != nil || c.Now().Sub(start) != time.Hour || time.Since(began) > time.Second {
		t.Errorf("Sleep(1h): %v, the clock moved %s in %s", err, c.Now().Sub(start), time.Since(began))
	}
	_ = c.Sleep(context.Background(), 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Sleep(ctx, time.Minute); err == nil || c.Now().Sub(start) != time.Hour {
		t.Errorf("Sleep on a done context: %v, the clock at +%s", err, c.Now().Sub(start))
	}
	if got := c.Slept(); !slices.Equal(got, []time.Duration{time.Hour}) {
		t.Errorf("Slept %v", got)
	}
}
