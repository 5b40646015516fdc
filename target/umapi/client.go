package umapi

import (
	"context"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"go.uber.org/zap"

	"github.com/orgsync/orgsync/target/umwire"
)

// Client talks to one organization of the User Management Service. It is
// safe for concurrent use; its rate limiters are shared by all callers.
type Client struct {
	cfg     Config
	http    *retryablehttp.Client
	tokens  *tokenSource
	stats   *counters
	log     *zap.Logger
	orgPath string // the orgId escaped for a path segment
}

// Option changes how New builds a Client beyond its Config.
type Option func(*options)

type options struct {
	logger *zap.Logger
	clock  func() time.Time
}

// WithLogger sends the client's debug and warning messages (retries,
// repeated pages) to l; the default discards them. No message holds a
// credential or token.
func WithLogger(l *zap.Logger) Option { return func(o *options) { o.logger = l } }

// WithClock replaces time.Now for the token's expiry and the JWT's exp
// claim (for tests with a simulated clock).
func WithClock(now func() time.Time) Option { return func(o *options) { o.clock = now } }

// New checks cfg (every problem at once, each named by its YAML field),
// applies the defaults and returns a Client. It sends nothing: the first
// request fetches the first token.
func New(cfg Config, opts ...Option) (*Client, error) {
	o := options{logger: zap.NewNop(), clock: time.Now}
	for _, opt := range opts {
		opt(&o)
	}
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("umapi: config: %w", err)
	}
	var key *rsa.PrivateKey
	if cfg.AuthMethod == AuthJWT {
		k, err := parsePrivateKey(cfg.PrivateKeyPEM, cfg.PrivateKeyPassphrase)
		if err != nil {
			return nil, fmt.Errorf("umapi: config: %w", err)
		}
		key = k
	}
	base, err := baseTransport(cfg)
	if err != nil {
		return nil, fmt.Errorf("umapi: config: %w", err)
	}
	ids, err := newRequestIDs()
	if err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, stats: &counters{}, log: o.logger, orgPath: url.PathEscape(cfg.OrgID)}
	c.http = &retryablehttp.Client{
		HTTPClient: &http.Client{
			Timeout:   cfg.Timeout,
			Transport: &transport{base: base, limits: newLimiters(cfg), ids: ids, stats: c.stats},
		},
		Logger:       leveledLogger{o.logger.Sugar()},
		RetryWaitMin: cfg.RetryWaitMin,
		RetryWaitMax: cfg.RetryWaitMax,
		RetryMax:     cfg.MaxRetries,
		CheckRetry:   checkRetry,
		Backoff:      backoff,
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
	}
	auth := &authenticator{cfg: cfg, key: key, http: c.http, clock: o.clock}
	c.tokens = newTokenSource(auth.fetch, o.clock, cfg.TokenRefreshMargin)
	return c, nil
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

// send performs c with retries and one token refresh on 401. It returns the
// 2xx response (the caller closes its body), an *APIError, or the transport
// or context error.
func (c *Client) send(ctx context.Context, cl call) (*http.Response, error) {
	ctx = withCall(ctx, &callInfo{endpoint: cl.endpoint, class: cl.class, unsafe: cl.unsafe})
	u := c.cfg.BaseURL + umwire.BasePath + cl.path
	if len(cl.query) > 0 {
		u += "?" + cl.query.Encode()
	}
	for refreshed := false; ; refreshed = true {
		tok, err := c.tokens.Token(ctx)
		if err != nil {
			return nil, err
		}
		resp, err := c.attempt(ctx, cl, u, tok)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("umapi: %s: %w", cl.endpoint, ctx.Err())
			}
			return nil, fmt.Errorf("umapi: %s: %w", cl.endpoint, err)
		}
		if resp.StatusCode == http.StatusUnauthorized && !refreshed {
			drain(resp)
			c.tokens.Invalidate(ctx, tok)
			continue
		}
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return nil, newAPIError(cl.endpoint, resp)
		}
		return resp, nil
	}
}

// attempt sends the request with the retrying client.
func (c *Client) attempt(ctx context.Context, cl call, u, tok string) (*http.Response, error) {
	var body any
	if cl.body != nil {
		body = cl.body
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, cl.method, u, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set(umwire.HeaderAPIKey, c.cfg.ClientID)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	if c.cfg.UsertypeUnknown {
		req.Header.Set(umwire.HeaderUsertypeUnknown, "true")
	}
	return c.http.Do(req)
}

// getJSON sends cl and decodes the 2xx body into v.
func (c *Client) getJSON(ctx context.Context, cl call, v any) (*http.Response, error) {
	resp, err := c.send(ctx, cl)
	if err != nil {
		return nil, err
	}
	defer drain(resp)
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return nil, fmt.Errorf("umapi: %s: decoding the answer [request %s]: %w", cl.endpoint, requestIDOf(resp), err)
	}
	return resp, nil
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
