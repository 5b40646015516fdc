// Package restapi is what the cloud directory sources (Entra ID, Okta,
// Google Workspace) share to read a JSON REST API: an HTTP client that
// authorizes every request with an OAuth 2.0 token or an API token
// (golang.org/x/oauth2), with DPoP proofs (RFC 9449, dpop.go) when the
// token is bound to a key, waits out throttling (429 and 503 with
// Retry-After, Okta's X-Rate-Limit-* headers, Google's 403
// rateLimitExceeded) and retries transient failures
// (hashicorp/go-retryablehttp) but not a host it cannot reach
// (ConnectError), follows next-page links, and describes the API's error
// answers, with advice on what to check (advice.go). Next-page links must
// stay on the API's origin, and every request goes through the outbound
// transport (internal/util/outbound), which refuses a redirect to another
// origin: a token, a client assertion or a secret is never sent
// elsewhere, and the API cannot send orgsync to an address of its
// choosing. The metadata and identity endpoints an Auth names
// (MetadataEndpoints) are reached without a proxy.
package restapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/hashicorp/go-retryablehttp"
	"go.uber.org/zap"
	"golang.org/x/oauth2"

	"github.com/orgsync/orgsync/internal/util/outbound"
	"github.com/orgsync/orgsync/internal/util/weburl"
)

// Defaults of Options.
const (
	DefaultTimeout    = time.Minute
	DefaultMaxRetries = 8
	DefaultMinWait    = 500 * time.Millisecond
	DefaultMaxWait    = 30 * time.Second
	// MaxThrottleWait bounds a wait a server asks for (Retry-After,
	// X-Rate-Limit-Reset).
	MaxThrottleWait = 5 * time.Minute
)

// Options configure a Client.
type Options struct {
	// BaseURL is the API's root; requests and next-page links must stay on
	// its scheme and host.
	BaseURL string
	Auth    Auth
	// Timeout bounds each request (DefaultTimeout).
	Timeout time.Duration
	// MaxRetries of a request after a throttled or failed attempt
	// (DefaultMaxRetries); the waits between attempts double from MinWait
	// to MaxWait unless the server says how long to wait.
	MaxRetries       int
	MinWait, MaxWait time.Duration
	// RateLimit is the most API requests (attempts) sent a minute,
	// evenly spaced; 0: no limit of the client's own.
	RateLimit int
	// Proxy chooses the proxy of each request but those to metadata
	// endpoints; nil: the environment's HTTPS_PROXY, HTTP_PROXY and
	// NO_PROXY.
	Proxy func(*http.Request) (*url.URL, error)
	Log   *zap.Logger
	// Clock measures and spends the client's waits; nil: the wall clock.
	Clock Clock
}

func (o *Options) applyDefaults() {
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = DefaultMaxRetries
	}
	if o.MinWait == 0 {
		o.MinWait = DefaultMinWait
	}
	if o.MaxWait == 0 {
		o.MaxWait = DefaultMaxWait
	}
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	if o.Clock == nil {
		o.Clock = wallClock{}
	}
}

// Client reads one API. Make it with New, for one read: the token
// source it holds lives as long as the context given to New.
type Client struct {
	http  *retryablehttp.Client
	token oauth2.TokenSource
	base  *url.URL
	log   *zap.Logger
	clock Clock
	stats struct{ requests, throttled atomic.Int64 }
	// pause is when the next request may be sent (UnixNano), after an
	// answer said that no request is left in the rate-limit window.
	pause atomic.Int64
}

// New returns a client for opts.BaseURL. ctx is the lifetime of its
// token source (token requests run under it).
func New(ctx context.Context, opts Options) (*Client, error) {
	opts.applyDefaults()
	base, err := weburl.Parse(opts.BaseURL)
	if err != nil {
		return nil, err
	}
	c := &Client{base: base, log: opts.Log, clock: opts.Clock}
	tokenLayers, apiLayers, err := layers(opts.Auth, c.count)
	if err != nil {
		return nil, err
	}
	if opts.RateLimit > 0 {
		lim := rate.NewLimiter(rate.Limit(float64(opts.RateLimit)/60), 1)
		apiLayers = append(apiLayers, func(next http.RoundTripper) http.RoundTripper {
			return &limited{lim: lim, clock: opts.Clock, base: next}
		})
	}
	out := outbound.Options{Timeout: opts.Timeout, Proxy: opts.Proxy}
	if m, ok := opts.Auth.(MetadataEndpoints); ok {
		out.Metadata = m.MetadataEndpoints()
	}
	tokens := c.retrying(opts, outbound.New(out, tokenLayers...))
	c.token = authErrors{src: opts.Auth.TokenSource(ctx, outbound.Above(&retryablehttp.RoundTripper{Client: tokens})), where: opts.Auth.Where()}
	out.IdleConns = MaxConns
	c.http = c.retrying(opts, outbound.New(out, append(apiLayers, func(next http.RoundTripper) http.RoundTripper {
		return &oauth2.Transport{Source: c.token, Base: next}
	})...))
	return c, nil
}

// MetadataEndpoints is an Auth whose tokens come from metadata or
// identity endpoints (a metadata server, the instance metadata service,
// App Service's identity endpoint, AWS's metadata for an external
// account): it names them, so that they are reached without a proxy.
type MetadataEndpoints interface {
	MetadataEndpoints() []string
}

// layers returns the layers of token requests and of API requests: a new
// client assertion in each token request when auth signs one, DPoP proofs
// when auth asks for them; count is told of each answer they drop to send
// a request again.
func layers(auth Auth, count func(*http.Response)) (token, api []outbound.Layer, err error) {
	if a, ok := auth.(asserter); ok {
		token = append(token, func(next http.RoundTripper) http.RoundTripper { return &assertionTransport{sign: a.sign, base: next} })
	}
	p, ok := auth.(prover)
	if !ok {
		return token, nil, nil
	}
	key, err := p.dpop()
	if key == nil || err != nil {
		return token, nil, err
	}
	token = append(token, func(next http.RoundTripper) http.RoundTripper {
		return &dpopTransport{key: key, base: next, token: true, dropped: count}
	})
	api = append(api, func(next http.RoundTripper) http.RoundTripper {
		return &dpopTransport{key: key, base: next, dropped: count}
	})
	return token, api, nil
}

// limited sends each request when the rate limit allows: every attempt
// counts against an API's quota, retries included.
type limited struct {
	lim   *rate.Limiter
	clock Clock
	base  http.RoundTripper
}

func (l *limited) RoundTrip(req *http.Request) (*http.Response, error) {
	now := l.clock.Now()
	r := l.lim.ReserveN(now, 1)
	if err := l.clock.Sleep(req.Context(), r.DelayFrom(now)); err != nil {
		r.CancelAt(l.clock.Now())
		return nil, err
	}
	return l.base.RoundTrip(req)
}

// MaxConns is how many connections to the API a client keeps open: a
// read runs up to five listings at once (users and four groups' members),
// each with its next page requested while one is decoded; the default
// would keep a few, and open a new connection for most requests.
const MaxConns = 16

// retrying wraps hc with the retry policy, its waits spent on the
// client's clock.
func (c *Client) retrying(opts Options, hc *http.Client) *retryablehttp.Client {
	backoff := func(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
		return backoffAt(c.clock.Now(), minWait, maxWait, attempt, resp)
	}
	if _, wall := c.clock.(wallClock); !wall { // the retrying client sleeps on the wall clock: the wait is spent here
		backoff = func(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
			_ = c.clock.Sleep(context.Background(), backoffAt(c.clock.Now(), minWait, maxWait, attempt, resp))
			return 0
		}
	}
	return &retryablehttp.Client{
		HTTPClient: hc, RetryMax: opts.MaxRetries, RetryWaitMin: opts.MinWait, RetryWaitMax: opts.MaxWait,
		CheckRetry: checkRetry, Backoff: backoff, ErrorHandler: withoutResponse,
		ResponseLogHook: func(_ retryablehttp.Logger, resp *http.Response) { c.count(resp) },
	}
}

// withoutResponse is the retrying client's ErrorHandler: the last
// attempt's error alone (its answer closed), or its answer. (A refused
// redirect comes with the redirect's answer; an http.Client above the
// retrying one would log that it got both.)
func withoutResponse(resp *http.Response, err error, _ int) (*http.Response, error) {
	if err != nil {
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		return nil, err
	}
	return resp, nil
}

// Log returns the client's logger, for what a directory notes as it
// reads.
func (c *Client) Log() *zap.Logger { return c.log }

// Authorize gets the first access token, so that a wrong credential is
// reported as such before anything is read.
func (c *Client) Authorize() error {
	_, err := c.token.Token()
	return err
}

// Stats are the counts of one client's requests.
type Stats struct {
	Requests  int64 // HTTP requests sent (token requests and attempts included)
	Throttled int64 // answers 429 or 503 (each retried after a wait)
}

// Stats returns the counts so far.
func (c *Client) Stats() Stats {
	return Stats{Requests: c.stats.requests.Load(), Throttled: c.stats.throttled.Load()}
}

// count notes one answer and the rate-limit window it reports.
func (c *Client) count(resp *http.Response) {
	c.stats.requests.Add(1)
	if throttled(resp) {
		c.stats.throttled.Add(1)
		c.log.Debug("throttled; waiting", zap.Int("status", resp.StatusCode), zap.String("path", resp.Request.URL.Path),
			zap.String("retryAfter", resp.Header.Get("Retry-After")))
	}
	if resp.Header.Get(HeaderRateLimitRemaining) == "0" {
		now := c.clock.Now()
		if reset, ok := rateLimitReset(resp.Header, now); ok {
			c.pause.Store(now.Add(reset).UnixNano())
		}
	}
}

func throttled(resp *http.Response) bool {
	return resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable || rateLimited403(resp)
}

// rateLimitReasons are the reasons of a Google API's 403 answer that
// mean "too many requests": retried as a 429 is.
var rateLimitReasons = []string{"rateLimitExceeded", "userRateLimitExceeded", "quotaExceeded"}

// rateLimited403 reports whether resp is a 403 that a Google API sends
// when throttling. It reads the body and puts it back for the next
// reader.
func rateLimited403(resp *http.Response) bool {
	if resp.StatusCode != http.StatusForbidden || resp.Body == nil {
		return false
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(data), resp.Body), resp.Body}
	var body struct{ Error json.RawMessage }
	if json.Unmarshal(data, &body) != nil {
		return false
	}
	reason, _, ok := googleError(body.Error)
	return ok && slices.Contains(rateLimitReasons, reason)
}

// Okta's rate-limit headers: the requests left in the current window and
// when (Unix seconds) it resets.
const (
	HeaderRateLimitRemaining = "X-Rate-Limit-Remaining"
	HeaderRateLimitReset     = "X-Rate-Limit-Reset"
)

// rateLimitReset returns how long until the window of X-Rate-Limit-Reset
// resets, at most MaxThrottleWait. The reset is a time on the server's
// clock: the wait is measured from the answer's Date header (plus a
// second, the header's resolution), as Okta advises, so that a local
// clock ahead of the server's does not shrink it; from now when the
// answer has no Date.
func rateLimitReset(h http.Header, now time.Time) (time.Duration, bool) {
	sec, err := strconv.ParseInt(h.Get(HeaderRateLimitReset), 10, 64)
	if err != nil {
		return 0, false
	}
	if date, err := http.ParseTime(h.Get("Date")); err == nil {
		now = date.Add(-time.Second)
	}
	return min(max(time.Unix(sec, 0).Sub(now), 0), MaxThrottleWait), true
}

// checkRetry retries throttled answers, server errors and dropped
// connections (every request is a GET); never an authentication failure,
// a client assertion that could not be made, a redirect to another origin
// or a done context.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	var auth *AuthError
	if errors.As(err, &auth) {
		return false, auth
	}
	if ce := connectError(err); ce != nil {
		return false, ce
	}
	var re *outbound.RedirectError
	if errors.As(err, &re) {
		return false, re
	}
	var ae *AssertionError
	if errors.As(err, &ae) {
		return false, ae
	}
	if err != nil {
		return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true, nil
	}
	return rateLimited403(resp), nil
}

// ConnectError is a failure to reach the API's host at all: connection
// refused, unknown host, no route, no answer to the connection attempt.
// It is not retried: a wrong address or a dead proxy does not heal within
// a read, and waiting out the retries would take minutes.
type ConnectError struct {
	Host string // host:port
	Err  error
}

func (e *ConnectError) Error() string {
	return fmt.Sprintf("cannot connect to %s: %v", e.Host, e.Err)
}

func (e *ConnectError) Unwrap() error { return e.Err }

// connectError returns err as a ConnectError when it is a failure to
// connect (a dial or name resolution error), else nil.
func connectError(err error) *ConnectError {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return nil
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return &ConnectError{Host: hostOf(ue.URL), Err: dns}
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return &ConnectError{Host: hostOf(ue.URL), Err: op}
	}
	return nil
}

// hostOf returns the host (and port) of u.
func hostOf(u string) string {
	if p, err := url.Parse(u); err == nil && p.Host != "" {
		return p.Host
	}
	return u
}

// Backoff waits what a throttled answer asks (Retry-After, else Okta's
// X-Rate-Limit-Reset) and up to half of minWait more, else a random wait
// between half and all of a wait that doubles from minWait to maxWait:
// every retry is jittered, so that the readers throttled at once (a
// read's five listings, other tools on the same quota) do not come back
// at once.
func Backoff(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
	return backoffAt(time.Now(), minWait, maxWait, attempt, resp)
}

// backoffAt is Backoff at time now.
func backoffAt(now time.Time, minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil && throttled(resp) {
		if d, ok := askedWait(resp, minWait, attempt, now); ok {
			return d + jitter(minWait/2)
		}
	}
	d := min(retryablehttp.DefaultBackoff(minWait, maxWait, attempt, nil), MaxThrottleWait)
	return d/2 + jitter(d-d/2)
}

// askedWait is the wait a throttled answer asks for at time now, at most
// MaxThrottleWait.
func askedWait(resp *http.Response, minWait time.Duration, attempt int, now time.Time) (time.Duration, bool) {
	if s := resp.Header.Get("Retry-After"); s != "" {
		if secs, err := strconv.ParseInt(s, 10, 64); err == nil && secs >= 0 {
			return min(time.Duration(min(secs, int64(MaxThrottleWait/time.Second)))*time.Second, MaxThrottleWait), true
		}
		if t, err := http.ParseTime(s); err == nil {
			return min(max(t.Sub(now), 0), MaxThrottleWait), true
		}
	}
	if d, ok := rateLimitReset(resp.Header, now); ok {
		return d + time.Duration(attempt)*minWait/4, true
	}
	return 0, false
}

// jitter returns a random duration in [0, d].
func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return rand.N(d + 1)
}

// wait sleeps until the rate-limit window allows a request.
func (c *Client) wait(ctx context.Context) error {
	d := time.Unix(0, c.pause.Load()).Sub(c.clock.Now())
	if d <= 0 {
		return nil
	}
	c.log.Debug("rate limit reached; waiting for the window to reset", zap.Duration("wait", d))
	return c.clock.Sleep(ctx, d)
}
