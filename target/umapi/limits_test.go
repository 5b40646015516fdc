package umapi

import (
	"context"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
	"github.com/orgsync/orgsync/target/umwire"
)

// limitWindow shortens the service's one-minute window so that tests run
// at full pressure in seconds. Four seconds leave the default 3% margin
// 120 ms of tolerance for scheduling jitter on a busy machine.
const limitWindow = 4 * time.Second

// readWindow is the window of the paced 200,000-user read: 4 s give each
// 2000-user page 164 ms, so that a simulator slowed by a busy, shared
// 2-core machine still answers within the pace (the client reads ahead;
// the simulator answers one request at a time).
const readWindow = 4 * time.Second

// atLimits returns a client configured with the given limits.
func atLimits(t *testing.T, e *simEnv, read, app int) *Client {
	cfg := e.config(AuthOAuth)
	cfg.ReadLimit, cfg.AppLimit, cfg.LimitWindow = read, app, limitWindow
	return mustClient(t, cfg)
}

// Action requests at the application limit get no 429 from the
// simulator's sliding window, and no window holds more than the limit.
func TestAppLimitNoTooManyRequests(t *testing.T) {
	t.Parallel()
	const app = 100
	const requests = app + app/4 // a window and a quarter
	e := newSimEnv(t, testState(20*requests), umsim.Options{Limits: gate.Limits{Read: 25, App: app, Window: limitWindow}})
	c := atLimits(t, e, 25, app)
	entries := syncEntries(20*requests, 0) // the even users join Writers: 10 entries a request
	rep, err := c.Batch(context.Background(), entries, ActionOptions{})
	if err != nil || rep.Completed != len(entries) {
		t.Fatalf("err = %v, completed %d of %d", err, rep.Completed, len(entries))
	}
	gs := e.sim.Stats()
	if rep.Requests != requests || gs.TooManyRequests != 0 || c.Stats().TooManyRequests != 0 || gs.PeakPerApp > app {
		t.Errorf("429s: simulator %d, client %d; %d requests, peak per window %d (limit %d)", gs.TooManyRequests, c.Stats().TooManyRequests, rep.Requests, gs.PeakPerApp, app)
	}
	t.Logf("%d requests, peak %d per window (limit %d)", rep.Requests, gs.PeakPerApp, app)
}

// A simulator stricter than the client (5 reads per window instead of 25)
// answers 429 storms; the client waits Retry-After and finishes the read.
func TestTooManyRequestsStorm(t *testing.T) {
	t.Parallel()
	const pages = 12
	e := newSimEnv(t, testState(pages), umsim.Options{PageSize: 1, Limits: gate.Limits{Read: 5, App: 100, Window: time.Second}})
	cfg := e.config(AuthOAuth)
	cfg.ReadLimit, cfg.LimitWindow, cfg.MaxRetries = 25, time.Second, 20
	c := mustClient(t, cfg)
	if n := countUsers(t, c); n != pages {
		t.Fatalf("read %d users, want %d", n, pages)
	}
	s, gs := c.Stats(), e.sim.Stats()
	if s.TooManyRequests == 0 || s.TooManyRequests != gs.TooManyRequests || s.Retries < s.TooManyRequests {
		t.Errorf("client 429s %d, retries %d, simulator 429s %d: want a storm, each 429 retried", s.TooManyRequests, s.Retries, gs.TooManyRequests)
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

// checkElapsed asserts a read within 5% of pages/read windows.
func checkElapsed(t *testing.T, pages, read int, window, elapsed time.Duration) {
	t.Helper()
	best := fastestRead(pages, read, window)
	t.Logf("%d pages in %s; fastest the limits allow %s (%.1f%%)", pages, elapsed, best, 100*float64(elapsed-best)/float64(best))
	if elapsed > best*105/100 {
		t.Errorf("read took %s, more than 5%% over %s", elapsed, best)
	}
}

// Reading a 200,000-user organization (umsim.Generate) from the simulator
// enforcing 25 reads
// and 100 requests per (shortened) window gets no 429 and takes within 5%
// of pages/25 windows (98 pages of 2000: 15.7 s at a 4 s window).
func TestSimRead200kAtLimits(t *testing.T) {
	t.Parallel()
	const read = 25
	st := umsim.Generate(umsim.GenOptions{Users: 200_000, Seed: 1, OrgID: fakeOrg})
	want := 0 // the listing shows active users other than technical accounts
	for _, u := range st.Users {
		if (u.Status == "" || u.Status == umwire.StatusActive) && !u.TechnicalAccount {
			want++
		}
	}
	e := newSimEnv(t, st, umsim.Options{Limits: gate.Limits{Read: read, App: 100, Window: readWindow}})
	cfg := e.config(AuthJWT)
	cfg.ReadLimit, cfg.AppLimit, cfg.LimitWindow = read, 100, readWindow
	c := mustClient(t, cfg)
	ctx := context.Background()
	start := time.Now()
	// Page 0 is timed apart: the simulator builds its listing index on the
	// first request (up to a second or more on a busy machine), which the
	// client cannot overlap: only page 0 tells how many pages follow.
	first, err := c.OrgUsersPage(ctx, 0, OrgUsersOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rest := time.Now()
	n, pages := 0, 0
	for p, err := range c.OrgUsersFrom(ctx, first, OrgUsersOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		n += len(p.Users)
		pages++
	}
	end := time.Now()
	if wantPages := (want + umwire.MaxUsersPerPage - 1) / umwire.MaxUsersPerPage; n != want || pages != wantPages {
		t.Fatalf("read %d users in %d pages, want %d in %d", n, pages, want, wantPages)
	}
	gs := e.sim.Stats()
	if gs.TooManyRequests != 0 || c.Stats().TooManyRequests != 0 || gs.PeakPerClient > read {
		t.Errorf("429s: simulator %d, client %d; peak per window %d (limit %d)", gs.TooManyRequests, c.Stats().TooManyRequests, gs.PeakPerClient, read)
	}
	t.Logf("page 0 in %s; whole read %s against %s", rest.Sub(start), end.Sub(start), fastestRead(pages, read, readWindow))
	// Page 0 took the first slot, so pages 1..N-1 follow at the limit's pace.
	checkElapsed(t, pages-1, read, readWindow, end.Sub(rest))
}

// A window's allowance of reads goes at once: 25 reads with a 10 s window
// take a fraction of it (spaced 400 ms apart they took 9.9 s), the 26th
// waits for the window, and the simulator enforcing the same limits
// answers no 429.
func TestReadsSpendAWindowAtOnce(t *testing.T) {
	t.Parallel()
	const read, window = 25, 10 * time.Second
	e := newSimEnv(t, testState(read), umsim.Options{PageSize: 1, Limits: gate.Limits{Read: read, App: 100, Window: window}})
	cfg := e.config(AuthOAuth)
	cfg.ReadLimit, cfg.AppLimit, cfg.LimitWindow = read, 100, window
	c := mustClient(t, cfg)
	ctx := context.Background()
	start := time.Now()
	for page := range read {
		if _, err := c.OrgUsersPage(ctx, page, OrgUsersOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d > window/2 {
		t.Errorf("%d reads took %s, want a fraction of the %s window", read, d, window)
	}
	short, cancel := context.WithTimeout(ctx, window/4)
	defer cancel()
	if _, err := c.OrgUsersPage(short, 0, OrgUsersOptions{}); err == nil {
		t.Error("a read past the window's allowance went at once")
	}
	if gs := e.sim.Stats(); gs.TooManyRequests != 0 || c.Stats().TooManyRequests != 0 {
		t.Errorf("429s: simulator %d, client %d", gs.TooManyRequests, c.Stats().TooManyRequests)
	}
}
