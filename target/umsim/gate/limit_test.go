package gate

import (
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umwire"
)

var actionPath = umwire.BasePath + "/action/" + testOrg

// expect429 checks a rate-limit answer and its Retry-After.
func expect429(t *testing.T, resp response, retryAfter string) {
	t.Helper()
	if resp.status != http.StatusTooManyRequests {
		t.Fatalf("status %d, want 429", resp.status)
	}
	var b umwire.RateLimitBody
	if err := json.Unmarshal([]byte(resp.body), &b); err != nil || b.ErrorCode != "429050" || b.Message == "" {
		t.Errorf("429 body %q (%v), want error_code 429050 and a message", resp.body, err)
	}
	if got := resp.header.Get(umwire.HeaderRetryAfter); got != retryAfter {
		t.Errorf("Retry-After %q, want %q", got, retryAfter)
	}
}

func TestPerTokenLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.Limits = Limits{Read: 3, Window: 200 * time.Millisecond} })
	tok := e.token(e.in)
	for i := range 3 {
		if got := e.get(usersPath, tok); got.status != 200 {
			t.Fatalf("read %d: %d, want 200", i, got.status)
		}
		e.clock.Advance(50 * time.Millisecond)
	}
	// t=150ms: the window holds reads at 0, 50, 100 ms.
	expect429(t, e.get(usersPath, tok), "1")
	// Actions and other endpoints do not count against the read limit.
	if got := e.do(e.apiRequest(http.MethodPost, actionPath, tok, e.in.ClientID)); got.status != 200 {
		t.Errorf("action at the read limit: %d, want 200", got.status)
	}
	// Another token of the same client has its own read window.
	if got := e.get(usersPath, e.token(e.in)); got.status != 200 {
		t.Errorf("second token: %d, want 200", got.status)
	}
	e.clock.Advance(49 * time.Millisecond)
	expect429(t, e.get(usersPath, tok), "1")
	// t=200ms: the read at 0 left the window; the rejected reads never counted.
	e.clock.Advance(time.Millisecond)
	if got := e.get(usersPath, tok); got.status != 200 {
		t.Errorf("after a slot freed: %d, want 200", got.status)
	}
	expect429(t, e.get(usersPath, tok), "1")
	// Peak per app: 3 reads, the action and the second token's read share a
	// window; at 200 ms the first read has left it.
	st := e.gate.Stats()
	if st.TooManyRequests != 3 || st.Count(EndpointUsers, 429) != 3 || st.PeakPerClient != 3 || st.PeakPerApp != 5 {
		t.Errorf("stats: 429s %d (users %d), peaks %d/%d; want 3 (3), 3/5",
			st.TooManyRequests, st.Count(EndpointUsers, 429), st.PeakPerClient, st.PeakPerApp)
	}
}

func TestPerAppLimitAndRetryAfter(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.Limits = Limits{App: 3, Window: 10 * time.Second} })
	tokA, tokB := e.token(e.in), e.token(e.in)
	for _, tok := range []string{tokA, tokB, tokA} {
		if got := e.do(e.apiRequest(http.MethodPost, actionPath, tok, e.in.ClientID)); got.status != 200 {
			t.Fatalf("action: %d, want 200", got.status)
		}
		e.clock.Advance(3 * time.Second)
	}
	// t=9s: requests at 0, 3, 6 s; the first leaves the window at 10 s.
	e.clock.Advance(-1500 * time.Millisecond) // t=7.5s: 2.5 s to wait, rounded up
	expect429(t, e.get(usersPath, tokB), "3")
	// The other integration has its own API key and window.
	other := testKeys()[1].in
	if got := e.do(e.apiRequest(http.MethodGet, usersPath, e.token(other), other.ClientID)); got.status != 200 {
		t.Errorf("other API key: %d, want 200", got.status)
	}
	e.clock.Advance(2500 * time.Millisecond)
	if got := e.get(usersPath, tokB); got.status != 200 {
		t.Errorf("at 10 s: %d, want 200", got.status)
	}
	if st := e.gate.Stats(); st.PeakPerApp != 3 || st.PeakPerClient != 1 || st.TooManyRequests != 1 {
		t.Errorf("stats: peaks %d/%d, 429s %d; want app 3, client 1, one 429", st.PeakPerApp, st.PeakPerClient, st.TooManyRequests)
	}
}

func TestNoLimitStillMeasuresPeaks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.Limits = Limits{Window: time.Second} })
	tok := e.token(e.in)
	for range 30 {
		if got := e.get(usersPath, tok); got.status != 200 {
			t.Fatalf("unlimited read: %d", got.status)
		}
		e.clock.Advance(100 * time.Millisecond)
	}
	// 100 ms apart in a 1 s window: at most 10 requests share a window.
	if st := e.gate.Stats(); st.PeakPerClient != 10 || st.PeakPerApp != 10 || st.TooManyRequests != 0 {
		t.Errorf("peaks %d/%d, 429s %d; want 10/10, 0", st.PeakPerClient, st.PeakPerApp, st.TooManyRequests)
	}
}

func TestConcurrentRequestsRespectLimit(t *testing.T) {
	t.Parallel()
	const workers, each, limit = 8, 25, 40
	e := newEnv(t, func(c *Config) { c.Limits = Limits{App: limit} })
	tok := e.token(e.in)
	statuses := make(chan int, workers*each)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				resp, err := e.send(e.apiRequest(http.MethodPost, actionPath, tok, e.in.ClientID))
				if err != nil {
					t.Error(err)
					return
				}
				statuses <- resp.status
			}
		})
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	st := e.gate.Stats()
	if count[200] != limit || count[429] != workers*each-limit || st.Count(EndpointAction, 200) != limit ||
		st.TooManyRequests != workers*each-limit || st.PeakPerApp != limit || e.calls.Load() != limit {
		t.Errorf("answers %v, stats %+v, handler calls %d; want %d admitted, the rest 429",
			count, st, e.calls.Load(), limit)
	}
}
