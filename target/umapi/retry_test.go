package umapi

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/orgsync/orgsync/internal/util/testenv"
	"github.com/orgsync/orgsync/target/umwire"
)

// shortTokens is a service whose tokens live one second and which answers
// 503 to the first failFirst attempts of every request (by path), 401 to
// an expired or unknown token.
type shortTokens struct {
	mu        sync.Mutex
	issued    map[string]time.Time
	attempts  map[string]int
	failFirst int
	fetches   atomic.Int32
	expired   atomic.Int32
}

func newShortTokens(t *testing.T, failFirst int) *httptest.Server {
	s := &shortTokens{issued: map[string]time.Time{}, attempts: map[string]int{}, failFirst: failFirst}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+umwire.PathClientCredentials, func(w http.ResponseWriter, r *http.Request) {
		tok := "ey-" + strconv.Itoa(int(s.fetches.Add(1)))
		s.mu.Lock()
		s.issued[tok] = time.Now()
		s.mu.Unlock()
		writeJSONBody(w, http.StatusOK, umwire.TokenResponse{TokenType: "bearer", AccessToken: tok, ExpiresIn: 1})
	})
	mux.HandleFunc(umwire.BasePath+"/", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		issued, ok := s.issued[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		s.attempts[r.URL.Path]++
		n := s.attempts[r.URL.Path]
		s.mu.Unlock()
		switch {
		case !ok || time.Since(issued) > time.Second:
			s.expired.Add(1)
			w.Header().Set("WWW-Authenticate", umwire.WWWAuthenticateInvalid)
			w.WriteHeader(http.StatusUnauthorized)
		case n <= s.failFirst:
			writeJSONBody(w, http.StatusServiceUnavailable, umwire.ErrorBody{Result: "error"})
		default:
			okUser(w, r)
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// Retries that outlast the token's lifetime go on with a valid token: the
// token is fetched before each attempt (after the back-off wait), and a 401
// from a token the client still believed valid (its clock stands still)
// refreshes it and goes on.
func TestTokenValidOnEveryAttempt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		opts     []Option
		want401s bool
	}{
		{"refreshed before each attempt", nil, false},
		{"refreshed on a 401 mid-retry", []Option{WithClock(func() time.Time { return time.Unix(1e9, 0) })}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newShortTokens(t, 5)
			c := mustClient(t, Config{AuthMethod: AuthOAuth, BaseURL: srv.URL, AuthBaseURL: srv.URL, OrgID: fakeOrg, ClientID: "c", ClientSecret: "s",
				ReadLimit: 1000, AppLimit: 1000, RetryWaitMin: 200 * time.Millisecond, RetryWaitMax: 800 * time.Millisecond, MaxRetries: 10}, tc.opts...)
			start := time.Now()
			if _, err := c.GetUser(context.Background(), "a@b.c", ""); err != nil {
				t.Fatalf("after %s: %v", time.Since(start), err)
			}
			s := c.Stats()
			if time.Since(start) < 1100*time.Millisecond || s.Requests[EndpointToken][http.StatusOK] < 2 {
				t.Errorf("the retries (%s, %v) did not outlast one token", time.Since(start), s.Requests)
			}
			if got := s.Requests[EndpointUser][http.StatusUnauthorized] > 0; got != tc.want401s {
				t.Errorf("401s: %v, want %v", s.Requests, tc.want401s)
			}
		})
	}
}

// A port with nothing listening fails in seconds, after a few attempts,
// naming the address and the cause; every retry is logged with its
// attempt number, out of the attempts such an address gets (not the
// configured retries, which it does not get), and the wait before the next.
func TestUnreachableFailsFast(t *testing.T) {
	t.Parallel()
	addr := "http://" + testenv.RefusedAddr(t)
	core, logs := observer.New(zap.WarnLevel)
	c := mustClient(t, Config{AuthMethod: AuthOAuth, BaseURL: addr, AuthBaseURL: addr, OrgID: fakeOrg, ClientID: "c", ClientSecret: "s"}, WithLogger(zap.New(core)))
	start := time.Now()
	_, err := c.GetUser(context.Background(), "a@b.c", "")
	elapsed := time.Since(start)
	var ue *UnreachableError
	if !errors.As(err, &ue) || ue.Attempts != fastAttempts || ue.Reason != ReasonRefused || ue.Endpoint != EndpointToken {
		t.Fatalf("err = %v, want an UnreachableError (refused, token endpoint) after %d attempts", err, fastAttempts)
	}
	if elapsed > 5*time.Second {
		t.Errorf("gave up after %s, want seconds (defaults: 8 retries up to 1m apart)", elapsed)
	}
	for _, want := range []string{addr, "connection refused", "authorization server"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	entries := logs.All()
	if len(entries) != fastAttempts-1 {
		t.Fatalf("%d retry log lines, want %d: %v", len(entries), fastAttempts-1, entries)
	}
	for i, e := range entries {
		if want := "attempt " + strconv.Itoa(i+1) + " of " + strconv.Itoa(fastAttempts) + " failed"; !strings.Contains(e.Message, want) || !strings.Contains(e.Message, "next attempt in") {
			t.Errorf("log line %q does not say %q and the next wait", e.Message, want)
		}
		if strings.Contains(e.Message, `"http`) || !strings.Contains(e.Message, "connection refused") {
			t.Errorf("log line %q: want the cause alone, without the Go client's method and quoted address", e.Message)
		}
	}
}

// An address that answered once is retried in full when it stops
// answering (a restart mid-run), and the unreachable classification knows
// unknown hosts.
func TestUnreachableAfterAnswer(t *testing.T) {
	t.Parallel()
	f := newFake(t, okUser)
	c := f.client(t, func(cfg *Config) { cfg.MaxRetries = 5 })
	if _, err := c.GetUser(context.Background(), "a@b.c", ""); err != nil {
		t.Fatal(err)
	}
	f.srv.Close()
	_, err := c.GetUser(context.Background(), "a@b.c", "")
	var ue *UnreachableError
	if err == nil || errors.As(err, &ue) || c.Stats().Requests[EndpointUser][StatusTransportError] != 6 {
		t.Errorf("err = %v, requests %v; want 6 attempts and a plain transport error", err, c.Stats().Requests)
	}
	if reasonOf(&net.DNSError{Name: "nowhere.invalid", IsNotFound: true}) != ReasonUnknownHost || reasonOf(&net.DNSError{IsTimeout: true}) != "" {
		t.Error("reasonOf misjudges DNS errors")
	}
}

// With retries turned off, a 401 still gets one attempt with a new token,
// and a 5xx is not retried.
func TestNoRetriesStillRefreshesToken(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case calls.Add(1) == 1:
			w.WriteHeader(http.StatusUnauthorized)
		case r.URL.Query().Get("fail") != "":
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			okUser(w, r)
		}
	})
	c := f.client(t, func(cfg *Config) { cfg.MaxRetries = -1 })
	if _, err := c.GetUser(context.Background(), "a@b.c", ""); err != nil || f.tokenFetchs.Load() != 2 {
		t.Fatalf("err %v after %d token fetches; want success with a second token", err, f.tokenFetchs.Load())
	}
	cl := call{endpoint: EndpointUser, class: limitRead, method: http.MethodGet, path: "/x", query: map[string][]string{"fail": {"1"}}}
	if _, err := c.send(context.Background(), cl); StatusOf(err) != http.StatusServiceUnavailable || calls.Load() != 3 {
		t.Errorf("err %v after %d calls; want one 503", err, calls.Load())
	}
}
