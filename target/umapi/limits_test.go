package umapi

import (
	"context"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umsim/gate"
	"github.com/orgsync/orgsync/target/umwire"
)

// limitWindow shortens the service's one-minute window so that tests run
// at full pressure in seconds. Two seconds leave the default 3% margin 60
// ms of tolerance for scheduling jitter on a busy machine.
const limitWindow = 2 * time.Second

// atLimits returns a client configured with the same limits as the gate.
func atLimits(t *testing.T, e *gateEnv, read, app int) *Client {
	cfg := e.config(AuthOAuth)
	cfg.ReadLimit, cfg.AppLimit, cfg.LimitWindow = read, app, limitWindow
	return mustClient(t, cfg)
}

// Action requests at the application limit get no 429 from the gate's
// sliding window, and no window holds more than the limit.
func TestAppLimitNoTooManyRequests(t *testing.T) {
	const app = 100
	e := newGateEnv(t, gate.Config{Limits: gate.Limits{Read: 25, App: app, Window: limitWindow}}, listingAPI(1))
	c := atLimits(t, e, 25, app)
	entries := make([]umwire.Entry, 10*(app+app/2)) // 150 requests: a window and a half
	for i := range entries {
		entries[i] = addEntry(i)
	}
	rep, err := c.Batch(context.Background(), entries, ActionOptions{})
	if err != nil || rep.Completed != len(entries) {
		t.Fatalf("err = %v, completed %d of %d", err, rep.Completed, len(entries))
	}
	gs := e.gate.Stats()
	if gs.TooManyRequests != 0 || c.Stats().TooManyRequests != 0 || gs.PeakPerApp > app {
		t.Errorf("429s: gate %d, client %d; peak per window %d (limit %d)", gs.TooManyRequests, c.Stats().TooManyRequests, gs.PeakPerApp, app)
	}
	if gs.PeakPerApp < app-2 {
		t.Errorf("peak per window %d: the client does not use the limit (%d)", gs.PeakPerApp, app)
	}
}

// A gate stricter than the client (5 reads per window instead of 25)
// answers 429 storms; the client waits Retry-After and finishes the read.
func TestTooManyRequestsStorm(t *testing.T) {
	const pages = 12
	e := newGateEnv(t, gate.Config{Limits: gate.Limits{Read: 5, App: 100, Window: time.Second}}, listingAPI(pages))
	cfg := e.config(AuthOAuth)
	cfg.ReadLimit, cfg.LimitWindow, cfg.MaxRetries = 25, time.Second, 20
	c := mustClient(t, cfg)
	if n := countUsers(t, c); n != pages {
		t.Fatalf("read %d users, want %d", n, pages)
	}
	s, gs := c.Stats(), e.gate.Stats()
	if s.TooManyRequests == 0 || s.TooManyRequests != gs.TooManyRequests || s.Retries < s.TooManyRequests {
		t.Errorf("client 429s %d, retries %d, gate 429s %d: want a storm, each 429 retried", s.TooManyRequests, s.Retries, gs.TooManyRequests)
	}
	if got := s.Requests[EndpointOrgUsers][200]; got != pages {
		t.Errorf("%d successful pages, want %d", got, pages)
	}
}

// fastestRead is the time the limits allow for reading `pages` pages at
// `read` requests per window.
func fastestRead(pages, read int, window time.Duration) time.Duration {
	return time.Duration(float64(pages) / float64(read) * float64(window))
}

// checkPacedRead asserts zero 429s and an elapsed time within 5% of the
// fastest the read limit allows.
func checkPacedRead(t *testing.T, c *Client, g *gate.Gate, pages, read int, elapsed time.Duration) {
	t.Helper()
	gs := g.Stats()
	if gs.TooManyRequests != 0 || c.Stats().TooManyRequests != 0 || gs.PeakPerClient > read {
		t.Errorf("429s: gate %d, client %d; peak per window %d (limit %d)", gs.TooManyRequests, c.Stats().TooManyRequests, gs.PeakPerClient, read)
	}
	best := fastestRead(pages, read, limitWindow)
	t.Logf("%d pages in %s; fastest the limits allow %s (%.1f%%)", pages, elapsed, best, 100*float64(elapsed-best)/float64(best))
	if elapsed > best*105/100 {
		t.Errorf("read took %s, more than 5%% over %s", elapsed, best)
	}
}

// Reading at the read limit gets no 429 and takes within 5% of the
// fastest the limit allows (pages / 25 windows).
func TestReadLimitPacing(t *testing.T) {
	const pages, read = 50, 25
	e := newGateEnv(t, gate.Config{Limits: gate.Limits{Read: read, App: 100, Window: limitWindow}}, listingAPI(pages))
	c := atLimits(t, e, read, 100)
	start := time.Now()
	if n := countUsers(t, c); n != pages {
		t.Fatalf("read %d users, want %d", n, pages)
	}
	checkPacedRead(t, c, e.gate, pages, read, time.Since(start))
}
