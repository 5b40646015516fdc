package umapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/util/outbound"
	"github.com/orgsync/orgsync/target/umwire"
)

// Client talks to one organization of the User Management Service. It is
// safe for concurrent use; its rate limiters are shared by all callers.
type Client struct {
	cfg       Config
	http      *retryablehttp.Client
	transport *transport
	tokens    *tokenSource
	stats     *counters
	log       *zap.Logger
	orgPath   string // the orgId escaped for a path segment
	// groupsRefused is the service's refusal of the group listing, once
	// it answered one (see GroupsPageAt).
	groupsRefused atomic.Pointer[APIError]
}

// Option changes how New builds a Client beyond its Config.
type Option func(*options)

type options struct {
	logger    *zap.Logger
	clock     func() time.Time
	limitsDir string
}

// WithLogger sends the client's debug and warning messages (retries,
// repeated pages) to l; the default discards them. No message holds a
// credential or token.
func WithLogger(l *zap.Logger) Option { return func(o *options) { o.logger = l } }

// WithClock replaces time.Now for the token's expiry and the JWT's exp
// claim (for tests with a simulated clock).
func WithClock(now func() time.Time) Option { return func(o *options) { o.clock = now } }

// WithSharedLimits shares the client's rate-limit windows with every
// orgsync process whose client (the same BaseURL and ClientID) is given
// the same folder: what each request spends of the service's per-minute
// windows is kept in a file there (locked while it is read and written),
// so that a process started within a window begins with what is left of
// it, and processes running at once share the limits. The folder is made
// (readable by its owner only) when it does not exist; when the file
// cannot be used, the client says so once and counts its own requests
// only.
func WithSharedLimits(dir string) Option { return func(o *options) { o.limitsDir = dir } }

// New applies the defaults to cfg, checks its secrets and files (see
// Config.Check; every problem at once in a *ConfigError, each named by its
// field) and returns a Client. It sends nothing: the first request fetches
// the first token.
func New(cfg Config, opts ...Option) (*Client, error) {
	o := options{logger: zap.NewNop(), clock: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	cfg = cfg.withDefaults()
	key, out, err := cfg.build()
	if err != nil {
		return nil, err
	}
	if cfg.AuthMethod == AuthJWT && key == nil {
		return nil, errNoKey
	}
	ids, err := newRequestIDs()
	if err != nil {
		return nil, err
	}
	var shared *sharedWindows
	if o.limitsDir != "" {
		if shared, err = newSharedWindows(o.limitsDir, cfg, o.logger); err != nil {
			o.logger.Warn("the rate limits cannot be shared with other orgsync processes: this process counts its own requests only", zap.Error(err))
			shared = nil
		}
	}
	c := &Client{cfg: cfg, stats: &counters{}, log: o.logger, orgPath: url.PathEscape(cfg.OrgID)}
	c.transport = &transport{limits: newLimiters(cfg, shared), ids: ids, stats: c.stats,
		waits: limitsNotice(o.logger, cfg), answers: answerNotice(o.logger, cfg)}
	// retryablehttp runs the attempts; checkRetry decides, waits (through
	// prepareRetry) and logs each retry, so retryablehttp logs nothing.
	// The outbound transport under c.transport bounds each attempt
	// (Config.Timeout), not the http.Client: the client's timeout would
	// count the rate limiters' waits and the token fetch too, and hide a
	// failed token fetch behind its own error.
	c.http = &retryablehttp.Client{
		HTTPClient: outbound.New(out, func(next http.RoundTripper) http.RoundTripper {
			c.transport.base = next
			return c.transport
		}),
		RetryMax:     maxRetryMax, // checkRetry stops at attemptsAllowed
		CheckRetry:   c.checkRetry,
		Backoff:      noBackoff,
		PrepareRetry: prepareRetry,
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
	}
	auth := &authenticator{cfg: cfg, key: key, http: c.http, clock: o.clock}
	c.tokens = newTokenSource(auth.fetch, o.clock, cfg.TokenRefreshMargin)
	c.transport.tokens = c.tokens
	return c, nil
}

// maxRetryMax is retryablehttp's bound on retries, above any the
// configuration allows; checkRetry enforces the real one.
const maxRetryMax = 1 << 20

// reached reports whether host has answered this client at least once.
func (c *Client) reached(host string) bool {
	_, ok := c.transport.reached.Load(host)
	return ok
}

// OrgID returns the organization the client works on.
func (c *Client) OrgID() string { return c.cfg.OrgID }

// Stats returns a copy of the client's request counters.
func (c *Client) Stats() Stats { return c.stats.snapshot() }

// call describes one logical request.
type call struct {
	endpoint string
	class    limitClass
	unsafe   bool // see callInfo.unsafe
	method   string
	path     string // below {BaseURL}/v2/usermanagement, segments already escaped
	query    url.Values
	body     []byte
}

// send performs cl with retries; every attempt carries a valid token, and
// a 401 drops the token and retries once (see checkRetry). It returns the
// 2xx response (the caller closes its body), an *APIError, an
// *UnreachableError, or the transport, token or context error; one of a
// request sent whole without an answer that says what the service did is
// a *NoAnswerError around it.
func (c *Client) send(ctx context.Context, cl call) (*http.Response, error) {
	u := c.cfg.BaseURL + umwire.BasePath + cl.path
	if len(cl.query) > 0 {
		u += "?" + cl.query.Encode()
	}
	ci := newCallInfo(cl.endpoint, cl.class, u)
	ci.unsafe, ci.auth = cl.unsafe, true
	resp, err := c.exchange(ctx, cl, ci, u)
	return resp, noAnswer(err, ci.unanswered.Load())
}

// exchange is send's attempts, and the error it returns.
func (c *Client) exchange(ctx context.Context, cl call, ci *callInfo, u string) (*http.Response, error) {
	resp, err := c.attempt(withCall(ctx, ci), cl, u)
	var ae *APIError
	var ue *UnreachableError
	switch {
	case err == nil && (resp.StatusCode < 200 || resp.StatusCode > 299):
		ae := newAPIError(cl.endpoint, resp)
		if ns := ae.notService(ci.origin); ns != nil {
			return nil, ns
		}
		return nil, ae
	case err == nil && webPage(resp):
		drain(resp)
		return nil, &UnreachableError{Endpoint: cl.endpoint, URL: ci.origin, Attempts: 1, Reason: ReasonNotService,
			Err: fmt.Errorf("HTTP %d with a web page, not JSON", resp.StatusCode)}
	case err == nil:
		return resp, nil
	case ctx.Err() != nil:
		return nil, fmt.Errorf("%s: %w", cl.endpoint, ctx.Err())
	case errors.As(err, &ue), errors.As(err, &ae) && ae.Endpoint == EndpointToken:
		return nil, err // they name their endpoint
	}
	return nil, fmt.Errorf("%s: %w", cl.endpoint, err)
}

// attempt sends the request with the retrying client.
func (c *Client) attempt(ctx context.Context, cl call, u string) (*http.Response, error) {
	var body any
	if cl.body != nil {
		body = cl.body
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, cl.method, u, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set(umwire.HeaderAPIKey, c.cfg.ClientID)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	if c.cfg.UsertypeUnknown {
		req.Header.Set(umwire.HeaderUsertypeUnknown, "true")
	}
	return c.http.Do(req)
}

// getJSON sends cl and decodes the 2xx body into v. An answer lost in
// the middle of its body (the connection dropped or stalled after the
// status line) is a dropped connection: a call that is safe to repeat is
// sent again, up to MaxRetries times, after the back-off.
//
// A request that changes something whose answer was lost or cannot be
// read was done by the service, but what it did is unknown: its error is
// a *NoAnswerError, as is that of a later attempt that fails.
func (c *Client) getJSON(ctx context.Context, cl call, v any) (*http.Response, error) {
	unread := false // an answer of a request that changes something could not be read
	for n := 0; ; n++ {
		resp, err := c.send(ctx, cl)
		if err != nil {
			return nil, noAnswer(err, unread)
		}
		err = decodeInto(resp, v)
		if err == nil {
			return resp, nil
		}
		err = fmt.Errorf("%s: decoding the answer [request %s]: %w", cl.endpoint, requestIDOf(resp), err)
		unread = unread || cl.method != http.MethodGet
		if cl.unsafe || !lostMidway(err) || n >= c.cfg.MaxRetries {
			return nil, noAnswer(err, unread)
		}
		c.log.Warn("the answer was lost midway; sending again", zap.String("endpoint", cl.endpoint), zap.Error(err))
		if err := sleep(ctx, backoff(c.cfg.RetryWaitMin, c.cfg.RetryWaitMax, n, nil)); err != nil {
			return nil, fmt.Errorf("%s: %w", cl.endpoint, err)
		}
	}
}

// sleep waits d, or until ctx is done (its error).
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// decodeInto decodes resp's body into v, which it zeroes first, and
// closes the body.
func decodeInto(resp *http.Response, v any) error {
	defer drain(resp)
	reflect.ValueOf(v).Elem().SetZero()
	return json.NewDecoder(resp.Body).Decode(v)
}

// lostMidway reports whether a decoding error comes from the body's
// reading (a dropped or stalled connection, a truncated body) rather than
// from JSON that was read whole and is not what was expected, or from a
// body longer than any answer of the service (outbound.TooLargeError).
func lostMidway(err error) bool {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var large *outbound.TooLargeError
	return !errors.As(err, &syntax) && !errors.As(err, &typ) && !errors.As(err, &large)
}

// drain reads what is left of a body (so the connection can be reused) and
// closes it.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
}

// resultError turns a 200 body whose result is not success into an error.
func resultError(endpoint string, resp *http.Response, result, message string) error {
	if result == "" || result == umwire.ResultSuccess {
		return nil
	}
	return &APIError{Endpoint: endpoint, StatusCode: resp.StatusCode, Code: result, Message: message, RequestID: requestIDOf(resp)}
}
