package umapi

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// errWaitPastDeadline: the rate limiter's wait would outlast the context's
// deadline, so the request is not sent.
var errWaitPastDeadline = fmt.Errorf("the wait for the rate limit would outlast the deadline: %w", context.DeadlineExceeded)

// limiters keep a client within the service's sliding-window limits with
// two mechanisms per limit:
//
//   - a sliding-window guard that counts a request from its release until
//     `window` after its answer came back (the answer is a bound on when
//     the server counted it) and holds a request while `limit` are
//     counted: no server window can then hold more than the limit, however
//     late requests arrive, so the guard alone rules out a 429;
//   - a token bucket (x/time/rate) of burst `limit` refilled every
//     window/limit*(1+margin): a window's whole allowance may go at once
//     (a first load's few reads cost no waiting, and a run of fewer
//     requests than the limit is not spaced out), while a long run is held
//     margin below the limit's rate.
//
// With the windows shared with other processes (WithSharedLimits), a
// request also waits for room in the shared window, which counts every
// process's requests.
type limiters struct {
	read, app limiter
}

// limiter is the bucket and the guard of one limit, and its window in
// the shared file (shared nil: not shared).
type limiter struct {
	bucket *rate.Limiter
	guard  *windowGuard
	shared *sharedWindows
	key    string // of the window in the shared file
	limit  int
}

// The keys of the shared windows: the application's, an organization's
// reads.
const (
	sharedApp   = "requests"
	sharedReads = "reads "
)

// newLimiters sizes the read and application limiters: a token bucket of
// a window's allowance refilled at the limit's rate (less RateMargin)
// beside a sliding-window guard, and the shared windows (nil: none).
func newLimiters(c Config, shared *sharedWindows) limiters {
	mk := func(limit int, key string) limiter {
		interval := time.Duration(float64(c.LimitWindow) / float64(limit) * (1 + c.RateMargin))
		return limiter{bucket: rate.NewLimiter(rate.Every(interval), limit), guard: newWindowGuard(limit, c.LimitWindow),
			shared: shared, key: key, limit: limit}
	}
	return limiters{read: mk(c.ReadLimit, sharedReads+c.OrgID), app: mk(c.AppLimit, sharedApp)}
}

// wait blocks until a request of class may be sent, honouring ctx. done
// must be called once the attempt has its answer (or failed).
func (l limiters) wait(ctx context.Context, class limitClass) (done func(), err error) {
	var ls []limiter
	switch class {
	case limitRead:
		ls = []limiter{l.read, l.app}
	case limitApp:
		ls = []limiter{l.app}
	}
	var dones []func()
	release := func() {
		for _, d := range dones {
			d()
		}
	}
	for _, lim := range ls {
		if err := lim.bucket.Wait(ctx); err != nil {
			release()
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, errWaitPastDeadline
		}
		d, err := lim.guard.acquire(ctx)
		if err != nil {
			release()
			return nil, err
		}
		dones = append(dones, d)
		if lim.shared == nil {
			continue
		}
		if d, err = lim.shared.acquire(ctx, lim.key, lim.limit); err != nil {
			release()
			return nil, err
		}
		dones = append(dones, d)
	}
	return release, nil
}

// windowGuard counts requests in flight and requests answered within the
// last `length`, and admits one more only while fewer than limit are
// counted.
type windowGuard struct {
	limit  int
	length time.Duration

	mu       sync.Mutex
	inFlight int
	answered []time.Time   // answer times of requests still counted, oldest first
	changed  chan struct{} // closed and replaced when a request is answered
}

// newWindowGuard allows limit requests per window of length.
func newWindowGuard(limit int, length time.Duration) *windowGuard {
	return &windowGuard{limit: limit, length: length, changed: make(chan struct{})}
}

// acquire waits for room and counts a request in flight; the returned func
// records its answer.
func (g *windowGuard) acquire(ctx context.Context) (func(), error) {
	for {
		g.mu.Lock()
		now := time.Now()
		g.forget(now)
		if g.inFlight+len(g.answered) < g.limit {
			g.inFlight++
			g.mu.Unlock()
			return g.answer, nil
		}
		wait := time.Duration(-1) // until an answer comes
		if len(g.answered) > 0 {  // the oldest answer leaves the window then
			wait = g.answered[0].Add(g.length).Sub(now)
		}
		changed := g.changed
		g.mu.Unlock()
		if err := sleepOrSignal(ctx, wait, changed); err != nil {
			return nil, err
		}
	}
}

// sleepOrSignal waits for d (forever when d < 0), for signal to close, or
// for ctx to end (its error).
func sleepOrSignal(ctx context.Context, d time.Duration, signal <-chan struct{}) error {
	var timeout <-chan time.Time
	if d >= 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timeout:
	case <-signal:
	}
	return nil
}

// answer moves a request from in flight to answered now.
func (g *windowGuard) answer() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inFlight--
	g.answered = append(g.answered, time.Now())
	close(g.changed)
	g.changed = make(chan struct{})
}

// forget drops the answers that left the window ending at now.
func (g *windowGuard) forget(now time.Time) {
	i := 0
	for i < len(g.answered) && !g.answered[i].After(now.Add(-g.length)) {
		i++
	}
	g.answered = g.answered[i:]
}
