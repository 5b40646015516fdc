package umapi

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"go.uber.org/zap"

	"github.com/orgsync/orgsync/target/umwire"
)

// checkRetry decides whether an attempt is retried: 429 always (the service
// rejected it before doing anything); 5xx (but 501), timeouts and dropped
// connections only for requests that are safe to repeat; never once the
// context is done.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if errors.Is(err, errWaitPastDeadline) {
		return false, err
	}
	if resp != nil && resp.StatusCode == http.StatusTooManyRequests {
		return true, nil
	}
	if ci := callOf(ctx); ci != nil && ci.unsafe {
		return false, err
	}
	if err != nil {
		return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	}
	return resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented, nil
}

// backoff doubles the wait per attempt from min up to max, the upper half
// of each interval drawn at random (jitter); after a 429 that names a
// Retry-After it waits at least that (plus up to 10% jitter): the
// specification asks for exponential back-off on 429s too, Retry-After
// being the least wait.
func backoff(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
	d := maxWait
	if attempt < 30 {
		d = min(minWait<<attempt, maxWait)
	}
	wait := d/2 + jitter(d/2)
	if resp != nil && resp.StatusCode == http.StatusTooManyRequests {
		if ra := parseRetryAfter(resp.Header.Get(umwire.HeaderRetryAfter), time.Now()); ra > 0 {
			wait = max(wait, ra+jitter(ra/10))
		}
	}
	return wait
}

// jitter returns a random duration in [0, d].
func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return rand.N(d + 1)
}

// leveledLogger adapts zap to retryablehttp's LeveledLogger; retryablehttp's
// messages (request method, redacted URL, wait) go to debug, its failures
// to warn: they are retried, and the final outcome is reported by the
// caller.
type leveledLogger struct{ s *zap.SugaredLogger }

// Error logs a failed attempt (it is retried) at warn level.
func (l leveledLogger) Error(msg string, kv ...any) { l.s.Warnw(msg, kv...) }

// Info logs at debug level.
func (l leveledLogger) Info(msg string, kv ...any) { l.s.Debugw(msg, kv...) }

// Debug logs at debug level.
func (l leveledLogger) Debug(msg string, kv ...any) { l.s.Debugw(msg, kv...) }

// Warn logs at warn level.
func (l leveledLogger) Warn(msg string, kv ...any) { l.s.Warnw(msg, kv...) }
