// Package outbound builds every HTTP client orgsync uses to reach another
// server: the service and its authorization server, the cloud directories
// with their token, metadata, identity, STS and IAM endpoints, and the
// webhooks. A client made by New keeps these promises for each of its
// requests, whatever the layers it is given add to them (an access token,
// an API key, a DPoP proof, a client assertion in a form body):
//
//   - A redirect is followed only within the origin (scheme, host and
//     port) of the request that was sent. One to another origin is refused
//     with a *RedirectError naming both, before anything is sent there: no
//     header, cookie, API key or re-sent form body reaches another host,
//     and a server cannot make orgsync request an address of its choosing
//     (a next-page link to another host is refused by the caller; a
//     redirect cannot go around that). The check sits in the transport
//     itself, under every layer, so it holds even when an http.Client
//     built around the transport follows redirects by its own rules.
//   - A metadata endpoint (a link-local address such as 169.254.169.254,
//     metadata.google.internal, and those Options.Metadata names) is never
//     reached through a proxy: Microsoft does not support the instance
//     metadata service behind one, and Google's metadata server refuses
//     requests a proxy relayed.
//   - Each request (each attempt, each redirect hop) ends within
//     Options.Timeout, its answer's body read included (a *TimeoutError).
//   - An answer's body is cut at Options.MaxBody bytes with a
//     *TooLargeError: a hostile or broken server cannot fill the memory.
package outbound

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults of Options.
const (
	DefaultTimeout   = time.Minute
	DefaultMaxBody   = 64 << 20
	DefaultIdleConns = 2
	// MaxRedirects bounds the redirects (within the origin) of one request.
	MaxRedirects = 10
)

// Options configure a client.
type Options struct {
	// Timeout bounds each request, from sending it to the end of its
	// answer's body (DefaultTimeout when 0).
	Timeout time.Duration
	// MaxBody bounds an answer's body in bytes (DefaultMaxBody when 0).
	MaxBody int64
	// Proxy chooses the proxy of a request; nil: the environment's
	// HTTPS_PROXY, HTTP_PROXY and NO_PROXY. Metadata endpoints never get
	// one, whatever it says.
	Proxy func(*http.Request) (*url.URL, error)
	// Metadata are the addresses (URLs, or host:port) of the metadata and
	// identity endpoints the client reaches besides the well-known ones
	// (see IsMetadata): they are reached without a proxy.
	Metadata []string
	// TLS configures TLS (extra roots, verification); nil: the system's
	// roots, TLS 1.2 at least.
	TLS *tls.Config
	// IdleConns is how many idle connections are kept per host
	// (DefaultIdleConns when 0).
	IdleConns int
}

// Layer is a RoundTripper a caller puts above the network transport: it
// receives the next RoundTripper down and returns its own.
type Layer func(next http.RoundTripper) http.RoundTripper

// New returns a client over the network transport of o, with layers
// stacked above it, the first layer lowest (next to the network). Its
// redirect policy refuses another origin (and more than MaxRedirects
// hops) before any layer sees the redirected request; the transport
// refuses it again for a client that would follow it.
func New(o Options, layers ...Layer) *http.Client {
	return Above(newGuard(o), layers...)
}

// Above returns a client like New's whose transport is layers stacked
// over rt: rt must be the transport of a client made by New, or a
// RoundTripper that sends through one (a retrying client's), so that the
// network transport with the package's promises stays at the bottom.
func Above(rt http.RoundTripper, layers ...Layer) *http.Client {
	for _, l := range layers {
		rt = l(rt)
	}
	return &http.Client{Transport: rt, CheckRedirect: checkRedirect}
}

// checkRedirect is the redirect policy of New's clients.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= MaxRedirects {
		return fmt.Errorf("stopped after %d redirects", MaxRedirects)
	}
	return crossOrigin(req)
}

// guard is the network transport with the package's promises.
type guard struct {
	net     *http.Transport
	timeout time.Duration
	maxBody int64
}

// newGuard builds the network transport of o.
func newGuard(o Options) *guard {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = o.IdleConns
	if tr.MaxIdleConnsPerHost <= 0 {
		tr.MaxIdleConnsPerHost = DefaultIdleConns
	}
	proxy := o.Proxy
	if proxy == nil {
		proxy = http.ProxyFromEnvironment
	}
	metadata := metadataHosts(o.Metadata)
	tr.Proxy = func(r *http.Request) (*url.URL, error) {
		if IsMetadata(r.URL) || metadata[hostPort(r.URL)] {
			return nil, nil
		}
		return proxy(r)
	}
	tr.TLSClientConfig = o.TLS
	if tr.TLSClientConfig == nil {
		tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	g := &guard{net: tr, timeout: o.Timeout, maxBody: o.MaxBody}
	if g.timeout <= 0 {
		g.timeout = DefaultTimeout
	}
	if g.maxBody <= 0 {
		g.maxBody = DefaultMaxBody
	}
	return g
}

// RoundTrip sends req unless it is a redirect to another origin, within
// the timeout, and bounds the answer's body.
func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := crossOrigin(req); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	ctx, cancel := context.WithTimeout(req.Context(), g.timeout)
	resp, err := g.net.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, g.timedOut(req.Context(), ctx, err)
	}
	resp.Body = &boundedBody{rc: resp.Body, left: g.maxBody, max: g.maxBody, host: req.URL.Host,
		cancel: cancel, timedOut: func(err error) error { return g.timedOut(req.Context(), ctx, err) }}
	return resp, nil
}

// timedOut returns err as a *TimeoutError when the request's own deadline
// (ctx, under parent) ended it.
func (g *guard) timedOut(parent, ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && parent.Err() == nil {
		return &TimeoutError{After: g.timeout}
	}
	return err
}

// TimeoutError is a request that did not end (its answer's body read
// included) within Options.Timeout.
type TimeoutError struct{ After time.Duration }

func (e *TimeoutError) Error() string { return fmt.Sprintf("no answer within %s", e.After) }

// Timeout marks the error as a timeout, as net.Error does.
func (e *TimeoutError) Timeout() bool { return true }

// TooLargeError is an answer whose body is longer than Options.MaxBody.
type TooLargeError struct {
	Host string
	Max  int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the answer of %s is longer than %d MiB: not read further", e.Host, e.Max>>20)
}

// boundedBody is an answer's body that fails past max bytes and ends the
// request's timeout when closed.
type boundedBody struct {
	rc       io.ReadCloser
	left     int64
	max      int64
	host     string
	cancel   context.CancelFunc
	timedOut func(error) error
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, &TooLargeError{Host: b.host, Max: b.max}
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n + int(b.left), &TooLargeError{Host: b.host, Max: b.max}
	}
	if err != nil && err != io.EOF {
		err = b.timedOut(err)
	}
	return n, err
}

func (b *boundedBody) Close() error {
	err := b.rc.Close()
	b.cancel()
	return err
}

// RedirectError is a redirect to another origin than the request's,
// refused.
type RedirectError struct {
	From, To string // the origins: scheme://host:port
	Status   int    // the redirect's status (301, 302, 303, 307, 308)
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("%s answered %d with a redirect to %s: refused, orgsync follows a redirect only within the same scheme, host and port, "+
		"so that credentials and requests go only where they are configured to go (configure the address the redirect names, if it is the right one)",
		e.From, e.Status, e.To)
}

// crossOrigin returns a *RedirectError when req is a redirect (the
// client's: req.Response is the answer that asked for it) to another
// origin than the first request of its chain.
func crossOrigin(req *http.Request) error {
	if req.Response == nil {
		return nil
	}
	first := req
	for first.Response != nil && first.Response.Request != nil {
		first = first.Response.Request
	}
	from, to := Origin(first.URL), Origin(req.URL)
	if from == to {
		return nil
	}
	return &RedirectError{From: from, To: to, Status: req.Response.StatusCode}
}

// Origin is u's scheme, host and port (the scheme's default port when u
// names none), in lower case: scheme://host:port.
func Origin(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + hostPort(u)
}

// hostPort is u's host and port, the scheme's default port when u names
// none, in lower case.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(net.JoinHostPort(u.Hostname(), port))
}

// metadataHosts are the host:port of addrs (URLs or host:port).
func metadataHosts(addrs []string) map[string]bool {
	hosts := map[string]bool{}
	for _, a := range addrs {
		if u, err := url.Parse(a); err == nil && u.Host != "" {
			hosts[hostPort(u)] = true
		} else if u, err := url.Parse("http://" + a); err == nil && u.Host != "" {
			hosts[hostPort(u)] = true
		}
	}
	return hosts
}

// wellKnownMetadata are the names of metadata servers.
var wellKnownMetadata = map[string]bool{"metadata.google.internal": true, "metadata.google.internal.": true, "metadata": true}

// awsIMDSv6 is the IPv6 address of AWS's instance metadata service.
var awsIMDSv6 = net.ParseIP("fd00:ec2::254")

// IsMetadata reports whether u is a well-known metadata endpoint: a
// link-local address (169.254.169.254 of Azure, AWS and Google; AWS's
// fd00:ec2::254) or Google's metadata.google.internal.
func IsMetadata(u *url.URL) bool {
	h := strings.ToLower(u.Hostname())
	if wellKnownMetadata[h] {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && (ip.IsLinkLocalUnicast() || ip.Equal(awsIMDSv6))
}
