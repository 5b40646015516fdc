package umapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/util/outbound"
	"github.com/orgsync/orgsync/target/umwire"
)

// fastAttempts bounds the attempts of a request to an address that has
// never answered this client and refuses connections or has no DNS name:
// a wrong baseURL or a service that is down fails in seconds, not after
// the minutes the full back-off takes. fastWaitMax bounds the waits
// between them.
const (
	fastAttempts = 3
	fastWaitMax  = 500 * time.Millisecond
)

// checkRetry decides whether an attempt is retried, and how long to wait
// first (kept in the call's callInfo for prepareRetry, and logged with the
// attempt number): 429 always (the service rejected it before doing
// anything); a 401 once after a successful answer or the first attempt,
// with a new token; 5xx (but 501), timeouts and dropped connections only
// for requests that are safe to repeat; an address that never answered
// and refuses connections (or has no DNS name) only fastAttempts times;
// never a failed token fetch, a redirect to another origin, nor once the
// context is done.
func (c *Client) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	ci := callOf(ctx)
	if ci == nil || errors.Is(err, errWaitPastDeadline) {
		return false, err
	}
	var te *tokenFetchError
	if errors.As(err, &te) {
		return false, te.err
	}
	var re *outbound.RedirectError
	if errors.As(err, &re) {
		return false, re // a redirect to another origin is refused, not retried
	}
	retry, stop := c.retryable(ctx, ci, resp, err)
	if !retry {
		return false, stop
	}
	if int(ci.attempts.Load()) >= c.attemptsAllowed(ci) {
		return false, nil // the last attempt's answer or error is the result
	}
	ci.wait = c.waitBefore(ci, resp, err)
	c.logRetry(ci, resp, err)
	return true, nil
}

// retryable is checkRetry's decision without the wait.
func (c *Client) retryable(ctx context.Context, ci *callInfo, resp *http.Response, err error) (bool, error) {
	if reason := c.neverReached(ci, err); reason != "" {
		if n := int(ci.attempts.Load()); n >= min(reason.attempts(), c.attemptsAllowed(ci)) {
			return false, &UnreachableError{Endpoint: ci.endpoint, URL: ci.origin, Attempts: n, Reason: reason, Err: withoutURL(err)}
		}
		return true, nil
	}
	if resp != nil && resp.StatusCode == http.StatusUnauthorized && ci.auth {
		if ci.refreshed {
			return false, nil
		}
		ci.refreshed = true
		ci.refreshes++
		c.tokens.Invalidate(ctx, ci.token)
		return true, nil
	}
	ci.refreshed = false
	if resp != nil && resp.StatusCode == http.StatusTooManyRequests {
		return true, nil
	}
	if ci.unsafe {
		return false, err
	}
	if err != nil {
		return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	}
	return resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented, nil
}

// attemptFailure says in a few words why an attempt got no answer: the
// cause alone (the endpoint and address are said beside it), a connection
// closed before any answer said so rather than "EOF".
func attemptFailure(err error) string {
	err = withoutURL(err)
	if errors.Is(err, io.EOF) {
		return "connection closed before an answer"
	}
	return err.Error()
}

// withoutURL returns the cause of a *url.Error (which repeats the method
// and the whole address), else err.
func withoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// attemptsAllowed is the most attempts of the call: the first, MaxRetries
// retries, and one more for each 401 answered with a new token (so that a
// token refresh is not lost when retries are turned off).
func (c *Client) attemptsAllowed(ci *callInfo) int { return 1 + c.cfg.MaxRetries + ci.refreshes }

// waitBefore is the wait before the next attempt: none after a 401 (a new
// token is all it takes), short ones towards an address that never
// answered, else backoff.
func (c *Client) waitBefore(ci *callInfo, resp *http.Response, err error) time.Duration {
	n := int(ci.attempts.Load()) - 1
	switch {
	case resp != nil && resp.StatusCode == http.StatusUnauthorized:
		return 0
	case c.neverReached(ci, err) != "":
		return backoff(min(c.cfg.RetryWaitMin, fastWaitMax), fastWaitMax, n, nil)
	}
	return backoff(c.cfg.RetryWaitMin, c.cfg.RetryWaitMax, n, resp)
}

// logRetry logs a failed attempt that will be retried: which attempt of
// how many (an address that never answered gets fewer, see retryable), why, and the wait before the next one.
func (c *Client) logRetry(ci *callInfo, resp *http.Response, err error) {
	n, most := int(ci.attempts.Load()), c.attemptsAllowed(ci)
	if never := c.neverReached(ci, err); never != "" {
		most = min(most, never.attempts())
	}
	reason := "error"
	if err != nil {
		reason = attemptFailure(err)
	} else if resp != nil {
		reason = fmt.Sprintf("HTTP %d", resp.StatusCode)
	}
	c.log.Warn(fmt.Sprintf("%s: attempt %d of %d failed (%s); next attempt in %s",
		ci.endpoint, n, most, reason, ci.wait.Round(time.Millisecond)),
		zap.String("endpoint", ci.endpoint), zap.Int("attempt", n), zap.Int("attempts", most),
		zap.Duration("wait", ci.wait), zap.String("reason", reason))
}

// prepareRetry waits, before a retry, the time checkRetry chose (the
// retrying client's own wait is zero, see noBackoff); a cancelled context
// ends the wait and the request.
func prepareRetry(req *http.Request) error {
	ci := callOf(req.Context())
	if ci == nil || ci.wait <= 0 {
		return nil
	}
	t := time.NewTimer(ci.wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-req.Context().Done():
		return req.Context().Err()
	}
}

// noBackoff is the retrying client's Backoff: checkRetry chooses the wait
// and prepareRetry waits it, so that the wait can be logged with the
// attempt it follows.
func noBackoff(time.Duration, time.Duration, int, *http.Response) time.Duration { return 0 }

// neverReached returns why the attempt failed when the call's address,
// which has never answered this client, cannot be used; "" when it has
// answered before or the failure is of another kind.
func (c *Client) neverReached(ci *callInfo, err error) Reason {
	if err == nil || c.reached(ci.host) {
		return ""
	}
	return reasonOf(err)
}

// backoff doubles the wait per attempt (counted from 0) from min up to
// max, the upper half of each interval drawn at random (jitter); after a
// 429 that names a Retry-After it waits at least that (plus up to 10%
// jitter): the specification asks for exponential back-off on 429s too,
// Retry-After being the least wait. It is defined for every input: a
// negative attempt counts as 0, negative bounds as 0, a max below min as
// min, and the doubling never overflows.
func backoff(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
	minWait = max(minWait, 0)
	maxWait = max(maxWait, minWait)
	attempt = max(attempt, 0)
	d := maxWait
	if attempt < 63 && minWait <= maxWait>>attempt {
		d = minWait << attempt
	}
	wait := d/2 + jitter(d-d/2)
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
