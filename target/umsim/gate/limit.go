package gate

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/orgsync/orgsync/target/umwire"
)

// window is the sliding-window log of one token or API key: the times of
// its admitted requests, oldest first.
type window struct {
	times []time.Time
}

// trim forgets the requests that left the window ending at now.
func (w *window) trim(now time.Time, length time.Duration) {
	cutoff := now.Add(-length)
	i := 0
	for i < len(w.times) && !w.times[i].After(cutoff) {
		i++
	}
	w.times = w.times[i:]
}

// wait returns how long until the window admits one more request under
// limit, or 0 when it admits one now.
func (w *window) wait(now time.Time, limit int, length time.Duration) time.Duration {
	if limit <= 0 || len(w.times) < limit {
		return 0
	}
	return w.times[len(w.times)-limit].Add(length).Sub(now)
}

// limiter enforces the per-token and per-API-key limits of contract 8 and
// measures the peak requests per window.
type limiter struct {
	mu        sync.Mutex
	limits    Limits
	perToken  map[string]*window
	perKey    map[string]*window
	lastSweep time.Time
}

// newLimiter enforces l (the default window when l.Window is 0).
func newLimiter(l Limits) *limiter {
	if l.Window == 0 {
		l.Window = defaultWindow
	}
	return &limiter{limits: l, perToken: map[string]*window{}, perKey: map[string]*window{}}
}

// verdict is the limiter's answer for one request.
type verdict struct {
	retryAfter time.Duration // > 0: rejected
	perToken   int           // requests of the token in its window, this one included
	perKey     int           // requests of the API key in its window, this one included
}

// admit decides on a request at now; a rejected request is not recorded.
// countToken says whether the request counts against the token's limit.
func (l *limiter) admit(now time.Time, token, key string, countToken bool) verdict {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	kw := l.windowOf(l.perKey, key, now)
	wait := kw.wait(now, l.limits.App, l.limits.Window)
	var tw *window
	if countToken {
		tw = l.windowOf(l.perToken, token, now)
		wait = max(wait, tw.wait(now, l.limits.Read, l.limits.Window))
	}
	if wait > 0 {
		return verdict{retryAfter: wait}
	}
	kw.times = append(kw.times, now)
	v := verdict{perKey: len(kw.times)}
	if tw != nil {
		tw.times = append(tw.times, now)
		v.perToken = len(tw.times)
	}
	return v
}

// windowOf returns the trimmed window of id in m, creating it if needed.
func (l *limiter) windowOf(m map[string]*window, id string, now time.Time) *window {
	w := m[id]
	if w == nil {
		w = &window{}
		m[id] = w
	}
	w.trim(now, l.limits.Window)
	return w
}

// sweep drops, at most once per window length, the windows that hold no
// request any more (tokens that expired or went quiet).
func (l *limiter) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < l.limits.Window {
		return
	}
	l.lastSweep = now
	for _, m := range []map[string]*window{l.perToken, l.perKey} {
		for id, w := range m {
			if w.trim(now, l.limits.Window); len(w.times) == 0 {
				delete(m, id)
			}
		}
	}
}

// admit runs check 6 of the package comment: it writes the 429 and reports
// false when a limit is reached.
func (g *Gate) admit(w http.ResponseWriter, s session, ep endpoint) bool {
	v := g.limiter.admit(g.clock(), s.token, s.clientID, ep.limitedPerClient())
	if v.retryAfter <= 0 {
		g.stats.peaks(v.perToken, v.perKey)
		return true
	}
	g.stats.tooMany()
	secs := max(1, int64((v.retryAfter+time.Second-1)/time.Second))
	w.Header().Set(umwire.HeaderRetryAfter, strconv.FormatInt(secs, 10))
	writeJSON(w, http.StatusTooManyRequests, umwire.RateLimitBody{
		ErrorCode: umwire.RateLimitCode,
		Message:   fmt.Sprintf("Too many requests; retry after %d s", secs),
	})
	return false
}
