package umapi

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The guard holds a request until the oldest answered one has been out of
// the window for its length, and gives up with the context.
func TestWindowGuard(t *testing.T) {
	t.Parallel()
	const length = 150 * time.Millisecond
	g := newWindowGuard(2, length)
	ctx := context.Background()
	d1, _ := g.acquire(ctx)
	d2, _ := g.acquire(ctx)
	d1()
	answered := time.Now()
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := g.acquire(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("acquire with two counted: err = %v, want the context's", err)
	}
	d3, err := g.acquire(ctx)
	if err != nil || time.Since(answered) < length {
		t.Errorf("third request admitted %s after the first answer (window %s), err %v", time.Since(answered), length, err)
	}
	d2()
	d3()
}

// Requests that reach the server late (here every 5th, by 250 ms, far over
// the 3% margin of a 1 s window) cannot squeeze an extra request into a
// server window: the guard counts each request until a window after its
// answer. The fake server counts arrivals in a sliding window as the
// service does.
func TestLimitsUnderLateArrivals(t *testing.T) {
	t.Parallel()
	const limit, window = 8, time.Second
	var mu sync.Mutex
	var arrivals []time.Time
	var seen, over atomic.Int32
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		if seen.Add(1)%5 == 0 {
			time.Sleep(250 * time.Millisecond) // the request is late
		}
		mu.Lock()
		now := time.Now()
		n := 1
		for _, a := range arrivals {
			if a.After(now.Add(-window)) {
				n++
			}
		}
		arrivals = append(arrivals, now)
		mu.Unlock()
		if n > limit {
			over.Add(1)
		}
		okUser(w, r)
	})
	c := f.client(t, func(cfg *Config) { cfg.ReadLimit, cfg.AppLimit, cfg.LimitWindow = limit, 100, window })
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 5 {
				if _, err := c.GetUser(context.Background(), "a@b.c", ""); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if n := over.Load(); n != 0 {
		t.Errorf("%d requests arrived in a full window", n)
	}
}
