package umapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umwire"
)

// The back-off is defined over its whole input range: any bounds, any
// attempt count (negative too: the count a failed token fetch left), any
// status and any Retry-After text give a wait that is not negative and
// stays within the larger of the upper bound and the longest Retry-After
// honoured (plus its jitter).
func FuzzBackoff(f *testing.F) {
	f.Add(int64(time.Second), int64(time.Minute), 0, 429, "7")
	f.Add(int64(time.Second), int64(time.Minute), -1, 0, "")
	f.Add(int64(time.Hour), int64(time.Hour), 62, 500, "")
	f.Add(int64(-5), int64(-7), 1<<40, 429, "9223372036854775807")
	f.Add(int64(1)<<62, int64(1)<<62, 30, 429, "Wed, 21 Oct 2015 07:28:00 GMT")
	f.Add(int64(1), int64(1)<<62, 61, 429, "Fri, 31 Dec 9999 23:59:59 GMT")
	f.Fuzz(func(t *testing.T, minWait, maxWait int64, attempt, status int, retryAfter string) {
		ra := parseRetryAfter(retryAfter, time.Now())
		if ra < 0 || ra > maxRetryAfter {
			t.Fatalf("parseRetryAfter(%q) = %s, want in [0, %s]", retryAfter, ra, maxRetryAfter)
		}
		resp := &http.Response{StatusCode: status, Header: http.Header{umwire.HeaderRetryAfter: {retryAfter}}}
		d := backoff(time.Duration(minWait), time.Duration(maxWait), attempt, resp)
		hi := max(time.Duration(maxWait), time.Duration(minWait), 0)
		if status == http.StatusTooManyRequests {
			hi = max(hi, maxRetryAfter+maxRetryAfter/10)
		}
		if d < 0 || d > hi {
			t.Fatalf("backoff(%d, %d, %d, %d %q) = %s, want in [0, %s]", minWait, maxWait, attempt, status, retryAfter, d, hi)
		}
	})
}

// scripted is a server whose every answer is chosen by the fuzzer: the
// API's answers from one script, the token endpoint's from another.
type scripted struct {
	mu          sync.Mutex
	api, tokens []byte
}

// next takes the next step of a script; a script that ran out answers 0
// (success).
func (s *scripted) next(script *[]byte) byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(*script) == 0 {
		return 0
	}
	b := (*script)[0]
	*script = (*script)[1:]
	return b
}

// retryAfters are the Retry-After values of the scripted 429s: those that
// make no wait of their own (long ones are FuzzBackoff's).
var retryAfters = []string{"", "0", "soon", "-5", "Wed, 21 Oct 2015 07:28:00 GMT", "1e99", " 0 "}

// serveAPI answers an API request as the script says.
func (s *scripted) serveAPI(w http.ResponseWriter, r *http.Request) {
	step := s.next(&s.api)
	switch step % 7 {
	case 0:
		okUser(w, r)
	case 1:
		w.Header().Set(umwire.HeaderRetryAfter, retryAfters[int(step/7)%len(retryAfters)])
		writeJSONBody(w, http.StatusTooManyRequests, map[string]string{"error_code": "429050"})
	case 2:
		writeJSONBody(w, http.StatusInternalServerError, map[string]string{"result": "error"})
	case 3:
		w.WriteHeader(http.StatusServiceUnavailable)
	case 4:
		w.WriteHeader(http.StatusUnauthorized)
	case 5:
		<-r.Context().Done() // hang
	case 6:
		dropConn(w)
	}
}

// serveToken answers a token request as the script says.
func (s *scripted) serveToken(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	switch s.next(&s.tokens) % 7 {
	case 0:
		writeJSONBody(w, http.StatusOK, umwire.TokenResponse{TokenType: "bearer", AccessToken: "ey-t", ExpiresIn: 3600})
	case 1:
		writeJSONBody(w, http.StatusBadRequest, map[string]string{"error": "invalid_client"})
	case 2:
		w.WriteHeader(http.StatusInternalServerError)
	case 3:
		<-r.Context().Done() // hang
	case 4:
		_, _ = io.WriteString(w, "{not json")
	case 5:
		writeJSONBody(w, http.StatusOK, umwire.TokenResponse{TokenType: "bearer", AccessToken: "ey-t", ExpiresIn: 1})
	case 6:
		dropConn(w)
	}
}

// dropConn closes the connection without an answer.
func dropConn(w http.ResponseWriter) {
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		conn.Close()
	}
}

// The retry path over its inputs: any sequence of answers (success, 429
// with any Retry-After, 500, 503, 401, no answer, dropped connection) at
// the API and at the token endpoint (success, refusal, 500, no answer,
// garbage, a token that lives a second, dropped connection), any number of
// retries. A request ends, well within its bounds, with a user or an
// error, never a panic, and no error names the package.
func FuzzRetryPath(f *testing.F) {
	f.Add([]byte{0}, []byte{0}, int8(3))
	f.Add([]byte{1, 2, 3, 4, 5, 6, 0}, []byte{0}, int8(8))
	f.Add([]byte{0}, []byte{3}, int8(3)) // the token request hangs: the panic of issue 20
	f.Add([]byte{5, 5, 5}, []byte{0}, int8(-1))
	f.Add([]byte{4, 4, 4}, []byte{0, 5, 1, 2, 3}, int8(2))
	f.Add([]byte{8, 15, 22, 29}, []byte{6, 6, 0}, int8(10))
	s := &scripted{}
	mux := http.NewServeMux()
	mux.HandleFunc(umwire.PathClientCredentials, s.serveToken)
	mux.HandleFunc(umwire.BasePath+"/", s.serveAPI)
	srv := httptest.NewServer(mux)
	f.Cleanup(srv.Close)
	f.Fuzz(func(t *testing.T, api, tokens []byte, retries int8) {
		s.mu.Lock()
		s.api, s.tokens = api, tokens
		s.mu.Unlock()
		const timeout = 30 * time.Millisecond
		maxRetries := int(min(max(retries, -1), 10))
		c := mustClient(t, Config{AuthMethod: AuthOAuth, BaseURL: srv.URL, AuthBaseURL: srv.URL, OrgID: fakeOrg, ClientID: "c", ClientSecret: "s",
			Timeout: timeout, MaxRetries: maxRetries, RetryWaitMin: time.Millisecond, RetryWaitMax: 2 * time.Millisecond,
			ReadLimit: 1 << 20, AppLimit: 1 << 20, LimitWindow: time.Second})
		// Each attempt of the request may wait for a token fetch that makes
		// attempts of its own: bound the two together, with room for a slow machine.
		attempts := 2 + max(maxRetries, 0)
		bound := time.Duration(attempts*attempts+len(api)+len(tokens))*(timeout+5*time.Millisecond) + 5*time.Second
		ctx, cancel := context.WithTimeout(context.Background(), bound)
		defer cancel()
		user, err := c.GetUser(ctx, "a@b.c", "")
		switch {
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil:
			t.Fatalf("the request outlasted %s", bound)
		case err == nil && user == nil:
			t.Fatal("no user and no error")
		case err != nil && strings.Contains(err.Error(), "umapi"):
			t.Errorf("error %q names the package", err)
		}
		c.http.HTTPClient.CloseIdleConnections()
	})
}
