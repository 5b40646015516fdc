// Package outboundtest gives the tests of orgsync's HTTP clients what
// attacking them takes: another host that records every byte it receives
// (Catcher), a handler that redirects to it (Redirect), and a forward
// proxy that says it relayed a request (Proxy). Only tests import it.
package outboundtest

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Catcher is "another host": a loopback HTTP server that records every
// byte it is sent, on every connection, and answers 200 with {}.
type Catcher struct {
	URL string
	mu  sync.Mutex
	got bytes.Buffer
}

// NewCatcher starts a Catcher until the test ends.
func NewCatcher(t testing.TB) *Catcher {
	t.Helper()
	c := &Catcher{}
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, "{}")
	}))
	s.Listener = &recording{Listener: s.Listener, c: c}
	s.Start()
	t.Cleanup(s.Close)
	c.URL = s.URL
	return c
}

// Bytes returns every byte the Catcher received so far.
func (c *Catcher) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.got.Bytes())
}

// Check fails the test when the Catcher received anything, and names
// which of secrets it saw.
func (c *Catcher) Check(t testing.TB, what string, secrets ...string) {
	t.Helper()
	got := c.Bytes()
	if len(got) == 0 {
		return
	}
	var seen []string
	for _, s := range secrets {
		if s != "" && bytes.Contains(got, []byte(s)) {
			seen = append(seen, s)
		}
	}
	t.Errorf("%s: the other host received %d bytes (credentials among them: %q):\n%s", what, len(got), seen, got)
}

// recording is a listener whose connections record what they read.
type recording struct {
	net.Listener
	c *Catcher
}

func (l *recording) Accept() (net.Conn, error) {
	conn, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &recordingConn{Conn: conn, c: l.c}, nil
}

type recordingConn struct {
	net.Conn
	c *Catcher
}

func (r *recordingConn) Read(p []byte) (int, error) {
	n, err := r.Conn.Read(p)
	r.c.mu.Lock()
	r.c.got.Write(p[:n])
	r.c.mu.Unlock()
	return n, err
}

// Redirect answers r with status (a 3xx) and Location: to followed by r's
// path and query.
func Redirect(w http.ResponseWriter, r *http.Request, to string, status int) {
	w.Header().Set("Location", strings.TrimRight(to, "/")+r.URL.RequestURI())
	w.WriteHeader(status)
}

// Front starts, until the test ends, a server in front of backend that
// redirects the requests redirect picks to the origin to (with status)
// and relays the others to backend unchanged (no X-Forwarded-For).
func Front(t testing.TB, backend, to string, status int, redirect func(*http.Request) bool) *httptest.Server {
	t.Helper()
	target, err := url.Parse(backend)
	if err != nil {
		t.Fatal(err)
	}
	relay := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target); r.Out.Host = r.In.Host }}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if redirect(r) {
			Redirect(w, r, to, status)
			return
		}
		relay.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// RedirectStatuses are the redirects a client may be sent: 301, 302 and
// 303 turn a POST into a GET without its body, 307 and 308 send it again.
var RedirectStatuses = []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
	http.StatusTemporaryRedirect, http.StatusPermanentRedirect}

// Proxy is a forward proxy on loopback: it relays each request it is sent
// (absolute-form, plain HTTP) with X-Forwarded-For added, as proxies do,
// and counts them by host.
type Proxy struct {
	URL    *url.URL
	mu     sync.Mutex
	byHost map[string]int
	n      atomic.Int64
}

// NewProxy starts a Proxy until the test ends.
func NewProxy(t testing.TB) *Proxy {
	t.Helper()
	p := &Proxy{byHost: map[string]int{}}
	direct := &http.Transport{Proxy: nil}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !r.URL.IsAbs() {
			http.Error(w, "a proxy takes absolute URLs", http.StatusBadRequest)
			return
		}
		p.n.Add(1)
		p.mu.Lock()
		p.byHost[r.URL.Host]++
		p.mu.Unlock()
		out := r.Clone(r.Context())
		out.RequestURI = ""
		out.Header.Set("X-Forwarded-For", "192.0.2.1")
		resp, err := direct.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(s.Close)
	t.Cleanup(direct.CloseIdleConnections)
	p.URL, _ = url.Parse(s.URL)
	return p
}

// Func is the proxy function that sends every request through p.
func (p *Proxy) Func() func(*http.Request) (*url.URL, error) { return http.ProxyURL(p.URL) }

// Relayed returns how many requests p relayed to host (host:port).
func (p *Proxy) Relayed(host string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.byHost[host]
}

// Total returns how many requests p relayed.
func (p *Proxy) Total() int { return int(p.n.Load()) }
