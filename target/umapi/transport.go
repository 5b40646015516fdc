package umapi

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/util/outbound"
	"github.com/orgsync/orgsync/target/umwire"
)

// limitClass says which client-side limiters a request waits on.
type limitClass int

const (
	limitNone limitClass = iota // token endpoints: not counted by the service
	limitApp                    // every service endpoint: the whole-application limit
	limitRead                   // endpoints 1-3: the per-client limit as well
)

// callInfo travels in a request's context from the Client to the transport
// and the retry policy; it names the endpoint and carries the state of one
// logical request across its attempts (which run one after another).
type callInfo struct {
	endpoint string
	class    limitClass
	unsafe   bool   // not idempotent: never retried after an ambiguous failure
	auth     bool   // carries an access token, fetched anew for each attempt
	host     string // the address's host:port
	origin   string // scheme://host of the address, for messages
	attempts atomic.Int32
	// unanswered is set once an attempt of a request that changes
	// something was sent whole (body and all) and no answer said what the
	// service did with it (none came, or a 5xx): it may have applied it.
	unanswered atomic.Bool

	token     string        // the token of the last attempt
	refreshed bool          // the last answer was a 401 and the token was dropped
	refreshes int           // 401s answered with a new token
	wait      time.Duration // the wait before the next attempt
}

// newCallInfo describes a request to rawURL.
func newCallInfo(endpoint string, class limitClass, rawURL string) *callInfo {
	ci := &callInfo{endpoint: endpoint, class: class, origin: rawURL}
	if u, err := url.Parse(rawURL); err == nil {
		ci.host, ci.origin = u.Host, u.Scheme+"://"+u.Host
	}
	return ci
}

// callKey is the context key of a callInfo.
type callKey struct{}

// withCall attaches ci to ctx for the transport.
func withCall(ctx context.Context, ci *callInfo) context.Context {
	return context.WithValue(ctx, callKey{}, ci)
}

// callOf returns the callInfo of ctx, or nil.
func callOf(ctx context.Context) *callInfo {
	ci, _ := ctx.Value(callKey{}).(*callInfo)
	return ci
}

// requestIDs makes X-Request-Id values unique per attempt: a random prefix
// per Client and a counter.
type requestIDs struct {
	prefix string
	n      atomic.Uint64
}

// newRequestIDs draws a random prefix for a client's request ids.
func newRequestIDs() (*requestIDs, error) {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("drawing the request id prefix: %w", err)
	}
	return &requestIDs{prefix: "orgsync-" + hex.EncodeToString(b) + "-"}, nil
}

// next returns a request id not used before by this client.
func (r *requestIDs) next() string { return r.prefix + strconv.FormatUint(r.n.Add(1), 10) }

// transport is the RoundTripper under the retrying client, above the
// outbound transport (which bounds the network part of each attempt by
// Config.Timeout, and refuses a redirect to another origin whatever this
// adds): every attempt waits on the limiters, gets a valid access token
// (fetched or refreshed when the cached one is near expiry, so that a
// request retried for longer than a token lives still carries a valid
// one) and its own X-Request-Id, and is counted; the hosts that answered
// are remembered.
type transport struct {
	base    http.RoundTripper
	limits  limiters
	waits   *waitNotice // for the rate limiters
	answers *waitNotice // for an answer
	ids     *requestIDs
	stats   *counters
	tokens  *tokenSource // set by New once the authenticator exists
	reached sync.Map     // host:port -> true once it answered
}

// tokenFetchError is a failed token fetch inside an attempt: the fetch did
// its own retries, so the attempt is not retried.
type tokenFetchError struct{ err error }

func (e *tokenFetchError) Error() string { return e.err.Error() }
func (e *tokenFetchError) Unwrap() error { return e.err }

// RoundTrip sends one attempt.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ci := callOf(req.Context())
	if ci == nil {
		return nil, errors.New("a request without endpoint information (a bug)")
	}
	stop := t.waits.start(ci.endpoint)
	done, err := t.limits.wait(req.Context(), ci.class)
	stop()
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	out := req.Clone(req.Context())
	if ci.auth {
		if ci.token, err = t.tokens.Token(req.Context()); err != nil {
			done()
			if req.Body != nil {
				req.Body.Close()
			}
			return nil, &tokenFetchError{err}
		}
		out.Header.Set("Authorization", "Bearer "+ci.token)
	}
	out.Header.Set(umwire.HeaderRequestID, t.ids.next())
	retry := ci.attempts.Add(1) > 1
	var wrote atomic.Bool
	if out.Method != http.MethodGet {
		out = out.WithContext(httptrace.WithClientTrace(out.Context(), &httptrace.ClientTrace{
			WroteRequest: func(w httptrace.WroteRequestInfo) { wrote.Store(w.Err == nil) }}))
	}
	quiet := t.answers.start(ci.endpoint)
	resp, err := t.base.RoundTrip(out)
	quiet()
	done()
	status := StatusTransportError
	if err == nil {
		status = resp.StatusCode
		t.reached.Store(ci.host, true)
	}
	if wrote.Load() && (err != nil || status >= 500) {
		ci.unanswered.Store(true)
	}
	t.stats.attempt(ci.endpoint, status, retry)
	return resp, err
}

// waitNotice says, at info, what a request waits for when it waits longer
// than after: the rate limiters holding it (a first plan that reads a few
// groups at 25 reads a minute would otherwise wait in silence), or a
// service that does not answer (with the default timeout, two minutes
// without a word); at most once every waitNoticeEvery, the other long
// waits at debug.
type waitNotice struct {
	log    *zap.Logger
	after  time.Duration
	format string // the message, %s the request's endpoint
	mu     sync.Mutex
	last   time.Time
}

// How long a wait for the limits, or for an answer (at most a quarter of
// the request timeout), goes unmentioned, and how often one is mentioned
// at info.
const (
	waitNoticeAfter   = 1500 * time.Millisecond
	answerNoticeAfter = 5 * time.Second
	waitNoticeEvery   = time.Minute
)

// limitsNotice is the notice of the waits for the rate limits of cfg.
func limitsNotice(log *zap.Logger, cfg Config) *waitNotice {
	return &waitNotice{log: log, after: waitNoticeAfter, format: fmt.Sprintf(
		"waiting for the service's rate limits (%d reads and %d requests per %s) before the next %%s request", cfg.ReadLimit, cfg.AppLimit, cfg.LimitWindow)}
}

// answerNotice is the notice of the waits for an answer, within the
// request timeout of cfg.
func answerNotice(log *zap.Logger, cfg Config) *waitNotice {
	after := min(answerNoticeAfter, cfg.Timeout/4)
	if after <= 0 {
		after = answerNoticeAfter
	}
	return &waitNotice{log: log, after: after, format: fmt.Sprintf(
		"the %%s request has had no answer for %s; waiting up to %s (the request timeout) before giving up", after, cfg.Timeout)}
}

// start starts timing a wait of a request to endpoint; stop ends it.
func (n *waitNotice) start(endpoint string) (stop func()) {
	t := time.AfterFunc(n.after, func() { n.say(endpoint) })
	return func() { t.Stop() }
}

// say logs the wait.
func (n *waitNotice) say(endpoint string) {
	n.mu.Lock()
	level := zap.DebugLevel
	if time.Since(n.last) >= waitNoticeEvery {
		level, n.last = zap.InfoLevel, time.Now()
	}
	n.mu.Unlock()
	n.log.Log(level, fmt.Sprintf(n.format, endpoint), zap.String("endpoint", endpoint))
}

// outboundOptions are the options of the client's outbound transport:
// the attempt timeout, the proxy, extra CAs, TLS checks.
func outboundOptions(c Config) (outbound.Options, error) {
	o := outbound.Options{Timeout: c.Timeout, IdleConns: 8} // read-ahead keeps up to 5 listing requests open
	if c.ProxyURL != "" {
		u, err := url.Parse(c.ProxyURL)
		if err != nil {
			return o, &FieldError{Field: "ProxyURL", Err: err}
		}
		o.Proxy = http.ProxyURL(u)
	}
	o.TLS = &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: c.InsecureSkipVerify} // #nosec G402 -- only when the user asks
	if c.CAFile != "" {
		pool, err := loadCAFile(c.CAFile)
		if err != nil {
			return o, &FieldError{Field: "CAFile", Err: err}
		}
		o.TLS.RootCAs = pool
	}
	return o, nil
}

// loadCAFile returns the system roots plus the certificates of path.
func loadCAFile(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return pool, nil
}
