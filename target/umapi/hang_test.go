package umapi

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/orgsync/orgsync/target/umwire"
)

// hangingListener accepts connections and never answers, as a hung proxy
// or a firewall that black-holes does. It returns the address as a URL.
func hangingListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String()
}

// waitGoroutines waits until no more than n goroutines run, and fails the
// test when they do not go away.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines left, %d before:\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A service that accepts connections and never answers fails the first
// request in one attempt timeout, with an UnreachableError that says so
// (no panic: the token request timing out used to reach the back-off with
// no attempt counted), and leaves no goroutine behind. (Not parallel: it
// counts the process's goroutines, which tests running beside it start.)
func TestHangingServiceFailsInOneTimeout(t *testing.T) {
	addr := hangingListener(t)
	before := runtime.NumGoroutine()
	for _, auth := range []string{"", "jwt"} {
		cfg := Config{AuthMethod: AuthOAuth, BaseURL: addr, AuthBaseURL: addr, OrgID: fakeOrg, ClientID: "c", ClientSecret: "s", Timeout: 300 * time.Millisecond}
		if auth == "jwt" {
			_, key := testIntegration()
			cfg.AuthMethod, cfg.TechAccountID = AuthJWT, "tech"
			cfg.PrivateKeyPEM = string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
		}
		c := mustClient(t, cfg)
		start := time.Now()
		_, err := c.GetUser(context.Background(), "a@b.c", "")
		elapsed := time.Since(start)
		var ue *UnreachableError
		if !errors.As(err, &ue) || ue.Reason != ReasonNoAnswer || ue.Endpoint != EndpointToken || ue.Attempts != 1 {
			t.Fatalf("%s: err = %#v, want an UnreachableError (no answer) at the token endpoint after 1 attempt", auth, err)
		}
		if elapsed < 300*time.Millisecond || elapsed > 5*time.Second {
			t.Errorf("%s: failed after %s, want about the 300ms timeout", auth, elapsed)
		}
		for _, want := range []string{addr, "no answer within 300ms", "authorization server"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q does not say %q", auth, err, want)
			}
		}
		if strings.Contains(err.Error(), "umapi") {
			t.Errorf("%s: error %q names the package", auth, err)
		}
		c.http.HTTPClient.CloseIdleConnections()
	}
	waitGoroutines(t, before)
}

// The API endpoints hanging after the token came: each attempt times out
// and is retried (the address answered, so it may be a restart or an
// overloaded moment) until the retries run out; every attempt counts and
// nothing panics.
func TestHangingAPIRetriedThenFails(t *testing.T) {
	t.Parallel()
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	// An attempt timeout the token's fetch keeps on a loaded machine (the
	// tests run side by side).
	c := f.client(t, func(cfg *Config) { cfg.Timeout, cfg.MaxRetries = 500*time.Millisecond, 2 })
	start := time.Now()
	_, err := c.GetUser(context.Background(), "a@b.c", "")
	var ue *UnreachableError
	if err == nil || errors.As(err, &ue) {
		t.Fatalf("err = %v, want the timeout of the last attempt", err)
	}
	if n := c.Stats().Requests[EndpointUser][StatusTransportError]; n != 3 || time.Since(start) > 5*time.Second {
		t.Errorf("%d timed-out attempts in %s, want 3 in about 1.5s", n, time.Since(start))
	}
}

// The attempt timeout bounds the network part of an attempt only: a rate
// limiter's wait longer than the timeout sends the request late, it does
// not fail it.
func TestLimiterWaitOutsideTimeout(t *testing.T) {
	t.Parallel()
	f := newFake(t, okUser)
	// A timeout a loaded machine keeps (the test runs beside others), a
	// third of the wait for the window.
	c := f.client(t, func(cfg *Config) {
		cfg.Timeout, cfg.ReadLimit, cfg.LimitWindow = 500*time.Millisecond, 2, 1500*time.Millisecond
	})
	for i := range 3 {
		if _, err := c.GetUser(context.Background(), "a@b.c", ""); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
}

// A token endpoint that hangs while the API answers: the token fetch
// fails in its own attempt timeout, and the request with it, without a
// panic and without being retried as if it had been sent.
func TestHangingTokenEndpoint(t *testing.T) {
	t.Parallel()
	var tokens atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+umwire.PathClientCredentials, func(w http.ResponseWriter, r *http.Request) {
		tokens.Add(1)
		_, _ = io.Copy(io.Discard, r.Body) // the server notices the client leave only once the body is read
		<-r.Context().Done()
	})
	mux.HandleFunc(umwire.BasePath+"/", okUser)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	reach := mustClient(t, Config{AuthMethod: AuthOAuth, BaseURL: srv.URL, AuthBaseURL: srv.URL, OrgID: fakeOrg, ClientID: "c", ClientSecret: "s",
		Timeout: 500 * time.Millisecond, MaxRetries: 2, RetryWaitMin: time.Millisecond, RetryWaitMax: 2 * time.Millisecond})
	reach.transport.reached.Store(strings.TrimPrefix(srv.URL, "http://"), true) // as if it had answered before
	start := time.Now()
	_, err := reach.GetUser(context.Background(), "a@b.c", "")
	if err == nil || !strings.Contains(err.Error(), "no answer within 500ms") {
		t.Fatalf("err = %v, want the token fetch's timeout", err)
	}
	if n := tokens.Load(); n != 3 || time.Since(start) > 5*time.Second {
		t.Errorf("%d token attempts in %s, want 3 (its own retries) in about 1.5s", n, time.Since(start))
	}
	if n := reach.Stats().Requests[EndpointUser]; len(n) != 0 {
		t.Errorf("user requests %v sent without a token", n)
	}
}

// An https:// address whose server speaks plain HTTP fails at once, on
// the first attempt, saying so.
func TestPlainHTTPServerFailsAtOnce(t *testing.T) {
	t.Parallel()
	f := newFake(t, okUser)
	addr := strings.Replace(f.srv.URL, "http://", "https://", 1)
	c := mustClient(t, Config{AuthMethod: AuthOAuth, BaseURL: addr, AuthBaseURL: addr, OrgID: fakeOrg, ClientID: "c", ClientSecret: "s"})
	start := time.Now()
	_, err := c.GetUser(context.Background(), "a@b.c", "")
	var ue *UnreachableError
	if !errors.As(err, &ue) || ue.Reason != ReasonPlainHTTP || ue.Attempts != 1 || time.Since(start) > time.Second {
		t.Fatalf("err = %v after %s, want an UnreachableError (plain HTTP) at once", err, time.Since(start))
	}
	if !strings.Contains(err.Error(), "answers plain HTTP, not HTTPS") {
		t.Errorf("error %q does not say the server speaks plain HTTP", err)
	}
}

// A web server that is not the service (its token endpoint answers 501,
// 404, or refuses without naming an error, as the service's API does below
// its API path) is reported as such at once; a refusal that names an error
// is the service refusing the credentials.
func TestTokenEndpointUnlikeTheService(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		status     int
		body       string
		notService bool
	}{
		{http.StatusNotImplemented, "", true},
		{http.StatusNotFound, "<html>not found</html>", true},
		{http.StatusUnauthorized, "", true},
		{http.StatusOK, "<html>welcome</html>", true},
		{http.StatusBadRequest, `{"error":"invalid_client","error_description":"bad secret"}`, false},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(c.status)
			_, _ = io.WriteString(w, c.body)
		}))
		c2 := mustClient(t, Config{AuthMethod: AuthOAuth, BaseURL: srv.URL, AuthBaseURL: srv.URL, OrgID: fakeOrg, ClientID: "c", ClientSecret: "s"})
		_, err := c2.GetUser(context.Background(), "a@b.c", "")
		srv.Close()
		var ue *UnreachableError
		if got := errors.As(err, &ue) && ue.Reason == ReasonNotService; got != c.notService {
			t.Errorf("HTTP %d %q: err = %v, not the service: %v, want %v", c.status, c.body, err, got, c.notService)
		}
		if c.notService && !strings.Contains(err.Error(), "does not answer like the service") {
			t.Errorf("HTTP %d: error %q does not say so", c.status, err)
		}
	}
}

// A request the rate limits hold for more than a second and a half says
// what it waits for, at info, instead of waiting in silence.
func TestLongLimiterWaitIsLogged(t *testing.T) {
	t.Parallel()
	f := newFake(t, okUser)
	core, logs := observer.New(zap.InfoLevel)
	c := f.client(t, func(cfg *Config) { cfg.ReadLimit, cfg.LimitWindow = 1, 2*time.Second })
	c.transport.waits.log = zap.New(core)
	for range 2 {
		if _, err := c.GetUser(context.Background(), "a@b.c", ""); err != nil {
			t.Fatal(err)
		}
	}
	if n := logs.FilterMessageSnippet("waiting for the service's rate limits (1 reads and").Len(); n != 1 {
		t.Errorf("%d wait notices, want 1: %v", n, logs.All())
	}
}

// A request the service does not answer says so, at info, after a quarter
// of the request timeout (at most 5s), with how long it will still wait:
// with the default timeout a hanging service was two minutes of silence.
func TestLongAnswerWaitIsLogged(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // held until the client gives up (or the test ends)
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	}))
	defer srv.Close()
	core, logs := observer.New(zap.InfoLevel)
	c := mustClient(t, Config{AuthMethod: AuthOAuth, BaseURL: srv.URL, AuthBaseURL: srv.URL, OrgID: fakeOrg, ClientID: "c", ClientSecret: "s",
		Timeout: 400 * time.Millisecond, MaxRetries: 0}, WithLogger(zap.New(core)))
	if _, err := c.GetUser(context.Background(), "a@b.c", ""); err == nil {
		t.Fatal("a service that never answers answered")
	}
	want := "the token request has had no answer for 100ms; waiting up to 400ms (the request timeout) before giving up"
	if n := logs.FilterMessage(want).Len(); n != 1 {
		t.Errorf("%d notices %q, want 1: %v", n, want, logs.All())
	}
}
