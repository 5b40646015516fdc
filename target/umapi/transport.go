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
	"net/url"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/orgsync/orgsync/target/umwire"
)

// limitClass says which client-side limiters a request waits on.
type limitClass int

const (
	limitNone limitClass = iota // token endpoints: not counted by the service
	limitApp                    // every service endpoint: the whole-application limit
	limitRead                   // endpoints 1-3: the per-client limit as well
)

// callInfo travels in a request's context from the Client to the transport;
// it names the endpoint and counts the attempts of one logical request.
type callInfo struct {
	endpoint string
	class    limitClass
	unsafe   bool // not idempotent: never retried after an ambiguous failure
	attempts atomic.Int32
}

type callKey struct{}

func withCall(ctx context.Context, ci *callInfo) context.Context {
	return context.WithValue(ctx, callKey{}, ci)
}

func callOf(ctx context.Context) *callInfo {
	ci, _ := ctx.Value(callKey{}).(*callInfo)
	return ci
}

// limiters paces requests so that no sliding window of the server holds
// more than its limit: a token bucket with burst 1 refilled every
// window/limit*(1+margin). With burst 1 any span of length T holds at most
// 1+T/interval requests, so a window holds at most the limit as long as
// the network compresses two arrivals by less than margin*window.
type limiters struct {
	read, app *rate.Limiter
}

func newLimiters(c Config) limiters {
	every := func(limit int) *rate.Limiter {
		interval := time.Duration(float64(c.LimitWindow) / float64(limit) * (1 + c.RateMargin))
		return rate.NewLimiter(rate.Every(interval), 1)
	}
	return limiters{read: every(c.ReadLimit), app: every(c.AppLimit)}
}

// wait blocks until the request may be sent, honouring ctx.
func (l limiters) wait(ctx context.Context, class limitClass) error {
	var ls []*rate.Limiter
	switch class {
	case limitRead:
		ls = []*rate.Limiter{l.read, l.app}
	case limitApp:
		ls = []*rate.Limiter{l.app}
	}
	for _, lim := range ls {
		if err := lim.Wait(ctx); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return errWaitPastDeadline
		}
	}
	return nil
}

// errWaitPastDeadline: the rate limiter's wait would outlast the context's
// deadline, so the request is not sent.
var errWaitPastDeadline = fmt.Errorf("umapi: rate limit wait would exceed the deadline: %w", context.DeadlineExceeded)

// requestIDs makes X-Request-Id values unique per attempt: a random prefix
// per Client and a counter.
type requestIDs struct {
	prefix string
	n      atomic.Uint64
}

func newRequestIDs() (*requestIDs, error) {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("umapi: request id prefix: %w", err)
	}
	return &requestIDs{prefix: "orgsync-" + hex.EncodeToString(b) + "-"}, nil
}

func (r *requestIDs) next() string { return r.prefix + strconv.FormatUint(r.n.Add(1), 10) }

// transport is the RoundTripper under the retrying client: every attempt
// waits on the limiters, gets its own X-Request-Id and is counted.
type transport struct {
	base   http.RoundTripper
	limits limiters
	ids    *requestIDs
	stats  *counters
}

// RoundTrip sends one attempt.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ci := callOf(req.Context())
	if ci == nil {
		return nil, errors.New("umapi: request without endpoint information")
	}
	if err := t.limits.wait(req.Context(), ci.class); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	out := req.Clone(req.Context())
	out.Header.Set(umwire.HeaderRequestID, t.ids.next())
	retry := ci.attempts.Add(1) > 1
	resp, err := t.base.RoundTrip(out)
	status := StatusTransportError
	if err == nil {
		status = resp.StatusCode
	}
	t.stats.attempt(ci.endpoint, status, retry)
	return resp, err
}

// baseTransport builds the HTTP transport: proxy, extra CAs, TLS checks.
func baseTransport(c Config) (*http.Transport, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 4
	tr.Proxy = http.ProxyFromEnvironment
	if c.ProxyURL != "" {
		u, err := url.Parse(c.ProxyURL)
		if err != nil {
			return nil, fmt.Errorf("proxyURL: %w", err)
		}
		tr.Proxy = http.ProxyURL(u)
	}
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: c.InsecureSkipVerify} // #nosec G402 -- only when the user asks
	if c.CAFile != "" {
		pool, err := loadCAFile(c.CAFile)
		if err != nil {
			return nil, err
		}
		tlsConf.RootCAs = pool
	}
	tr.TLSClientConfig = tlsConf
	return tr, nil
}

// loadCAFile returns the system roots plus the certificates of path.
func loadCAFile(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("caFile: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("caFile: %s holds no PEM certificate", path)
	}
	return pool, nil
}
