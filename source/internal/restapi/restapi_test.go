package restapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/util/testenv"
	"github.com/orgsync/orgsync/secret"
)

func TestNextLink(t *testing.T) {
	t.Parallel()
	for h, want := range map[string]string{
		`<https://x/api/v1/users?after=2>; rel="next"`:         "https://x/api/v1/users?after=2",
		`<https://x/a>; rel="self", <https://x/b>; rel="next"`: "https://x/b",
		`<https://x/a>; rel="self"`:                            "",
		`<https://x/b>; rel="prev next"`:                       "https://x/b",
		``:                                                     "",
		`https://x/b; rel="next"`:                              "",
	} {
		hdr := http.Header{}
		if h != "" {
			hdr.Set("Link", h)
		}
		if got := NextLink(hdr); got != want {
			t.Errorf("NextLink(%q) = %q, want %q", h, got, want)
		}
	}
	// Okta sends one Link header a link.
	hdr := http.Header{"Link": {`<https://x/a>; rel="self"`, `<https://x/b?after=00u1&limit=200>; rel="next"`}}
	if got := NextLink(hdr); got != "https://x/b?after=00u1&limit=200" {
		t.Errorf("NextLink of two Link headers = %q", got)
	}
}

func TestAttr(t *testing.T) {
	t.Parallel()
	obj := map[string]any{"mail": "a@x", "n": 3.0, "ok": true, "list": []any{"first", "second"}, "empty": []any{},
		"ext": map[string]any{"attr1": "v1"}, "null": nil}
	for path, want := range map[string]string{"mail": "a@x", "n": "3", "ok": "true", "list": "first", "empty": "",
		"ext.attr1": "v1", "ext": "", "missing": "", "mail.x": "", "null": ""} {
		if got := Attr(obj, path); got != want {
			t.Errorf("Attr(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	now := time.Now()
	resp := func(status int, h ...string) *http.Response {
		r := &http.Response{StatusCode: status, Header: http.Header{}}
		for i := 0; i < len(h); i += 2 {
			r.Header.Set(h[i], h[i+1])
		}
		return r
	}
	reset := strconv.FormatInt(now.Add(3*time.Second).Unix(), 10)
	for _, tc := range []struct {
		name     string
		resp     *http.Response
		min, max time.Duration
	}{
		{"Retry-After", resp(429, "Retry-After", "2"), 2 * time.Second, 2*time.Second + 50*time.Millisecond},
		{"503 Retry-After", resp(503, "Retry-After", "1"), time.Second, time.Second + 50*time.Millisecond},
		{"X-Rate-Limit-Reset", resp(429, HeaderRateLimitReset, reset), time.Second, 4 * time.Second},
		{"500 doubles, jittered", resp(500), 200 * time.Millisecond, 400 * time.Millisecond},
		{"huge Retry-After capped", resp(429, "Retry-After", "99999"), MaxThrottleWait, MaxThrottleWait + 50*time.Millisecond},
	} {
		if d := Backoff(100*time.Millisecond, time.Second, 2, tc.resp); d < tc.min || d > tc.max {
			t.Errorf("%s: wait %s, want %s..%s", tc.name, d, tc.min, tc.max)
		}
	}
}

// FuzzBackoff: every wait is jittered and bounded: a throttled answer's
// Retry-After is waited in full and at most half of minWait more; any
// other retry waits between half and all of the doubling wait.
func FuzzBackoff(f *testing.F) {
	f.Add(429, "2", 1)
	f.Add(503, "", 3)
	f.Add(500, "x", 40)
	f.Add(403, "-1", 0)
	f.Fuzz(func(t *testing.T, status int, retryAfter string, attempt int) {
		minWait, maxWait := 100*time.Millisecond, 2*time.Second
		r := &http.Response{StatusCode: status, Header: http.Header{"Retry-After": {retryAfter}}}
		d := Backoff(minWait, maxWait, attempt, r)
		if d < 0 || d > MaxThrottleWait+minWait/2 {
			t.Fatalf("status %d Retry-After %q attempt %d: wait %s", status, retryAfter, attempt, d)
		}
		if secs, err := strconv.Atoi(retryAfter); err == nil && secs >= 0 && secs < 300 && throttled(r) {
			if asked := time.Duration(secs) * time.Second; d < asked || d > asked+minWait/2 {
				t.Fatalf("Retry-After %ds: wait %s", secs, d)
			}
		}
	})
}

// TestBackoffIsJittered: waits of the same retry differ, so that readers
// throttled together do not come back together.
func TestBackoffIsJittered(t *testing.T) {
	t.Parallel()
	seen := map[time.Duration]bool{}
	for range 50 {
		seen[Backoff(time.Second, time.Minute, 3, &http.Response{StatusCode: 429, Header: http.Header{"Retry-After": {"1"}}})] = true
		seen[Backoff(time.Second, time.Minute, 3, &http.Response{StatusCode: 500, Header: http.Header{}})] = true
	}
	if len(seen) < 50 {
		t.Errorf("%d different waits in 100 retries: not jittered", len(seen))
	}
}

// newTestClient returns a client of srv with an API token and short waits.
func newTestClient(t *testing.T, url string) *Client {
	c, err := New(context.Background(), Options{BaseURL: url, Auth: StaticToken{Scheme: "SSWS", Token: secret.Value("tok")},
		MinWait: time.Millisecond, MaxWait: 5 * time.Millisecond, MaxRetries: 3})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestWalkRefusesForeignNextLinks(t *testing.T) {
	t.Parallel()
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "SSWS tok" {
			w.WriteHeader(401)
			return
		}
		w.Header().Set("Link", fmt.Sprintf(`<%s/page2>; rel="next"`, other.URL))
		fmt.Fprint(w, "[]")
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL)
	err := c.Walk(context.Background(), "/page1", nil, func(resp *http.Response) (string, error) { return NextLink(resp.Header), nil })
	if err == nil || !strings.Contains(err.Error(), "refusing") || elsewhere.Load() != 0 {
		t.Fatalf("next link to another host: %v (%d requests there)", err, elsewhere.Load())
	}
}

func TestStatusErrorsAndRetries(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/flaky": // 503 twice, then fine
			if n.Add(1) <= 2 {
				w.WriteHeader(503)
				return
			}
			fmt.Fprint(w, `{"ok":true}`)
		case "/graph403":
			w.WriteHeader(403)
			fmt.Fprint(w, `{"error":{"code":"Authorization_RequestDenied","message":"Insufficient privileges"}}`)
		case "/okta404":
			w.WriteHeader(404)
			fmt.Fprint(w, `{"errorCode":"E0000007","errorSummary":"Not found"}`)
		}
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL)
	var v struct {
		OK bool `json:"ok"`
	}
	if err := c.GetJSON(context.Background(), "/flaky", nil, &v); err != nil || !v.OK {
		t.Errorf("flaky: %v %v", err, v)
	}
	if st := c.Stats(); st.Requests != 3 || st.Throttled != 2 {
		t.Errorf("stats %+v, want 3 requests, 2 throttled", st)
	}
	for path, want := range map[string]string{"/graph403": "GET /graph403: 403 Forbidden: Authorization_RequestDenied: Insufficient privileges",
		"/okta404": "GET /okta404: 404 Not Found: E0000007: Not found"} {
		if err := c.GetJSON(context.Background(), path, nil, &v); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
}

// FuzzNextLink checks that any Link header parses without panicking and
// that a next link found is the text between a "<" and a ">" of the
// header.
func FuzzNextLink(f *testing.F) {
	for _, s := range []string{`<https://x/b>; rel="next"`, `<a>; rel="self", <b>; rel=next`, `<>; rel="next"`, `<x;rel=next`, `,,;;<>`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		next := NextLink(http.Header{"Link": {h}})
		if next != "" && !strings.Contains(h, "<"+next+">") {
			t.Fatalf("NextLink(%q) = %q, not a <target> of the header", h, next)
		}
	})
}

func TestConnectionRefusedFailsFast(t *testing.T) {
	t.Parallel()
	// The default waits: retrying a refused connection would take over a
	// minute.
	dead := testenv.RefusedAddr(t)
	c, err := New(context.Background(), Options{BaseURL: "http://" + dead, Auth: StaticToken{Scheme: "SSWS", Token: secret.Value("tok")}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = c.GetJSON(context.Background(), "/api/v1/users", nil, &struct{}{})
	var ce *ConnectError
	if !errors.As(err, &ce) || ce.Host != dead || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("dead server: %v, want a ConnectError naming %s", err, dead)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s: a refused connection was retried", d)
	}
}

// The wait of X-Rate-Limit-Reset is measured on the server's clock (the
// answer's Date, plus its one-second resolution): a local clock far ahead
// or behind does not change it.
func TestRateLimitResetFromTheServersDate(t *testing.T) {
	t.Parallel()
	server := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	h := http.Header{HeaderRateLimitReset: {strconv.FormatInt(server.Unix()+5, 10)}, "Date": {server.Format(http.TimeFormat)}}
	for _, skew := range []time.Duration{0, time.Hour, -time.Hour, 30 * time.Second} {
		if d, ok := rateLimitReset(h, server.Add(skew)); !ok || d != 6*time.Second {
			t.Errorf("local clock %s off: wait %s %v, want 6s", skew, d, ok)
		}
	}
	h.Del("Date") // no Date: the local clock
	if d, _ := rateLimitReset(h, server.Add(2*time.Second)); d != 3*time.Second {
		t.Errorf("without Date: wait %s, want 3s", d)
	}
}

// FuzzRateLimitReset: any pair of headers gives a wait in
// [0, MaxThrottleWait] or none, never a panic.
func FuzzRateLimitReset(f *testing.F) {
	f.Add("1700000005", "Tue, 14 Nov 2023 22:13:20 GMT", int64(1700000000))
	f.Add("-9223372036854775808", "Mon, 01 Jan 0001 00:00:00 GMT", int64(-1<<62))
	f.Add("9223372036854775807", "Fri, 31 Dec 9999 23:59:59 GMT", int64(1<<62))
	f.Fuzz(func(t *testing.T, reset, date string, now int64) {
		h := http.Header{HeaderRateLimitReset: {reset}, "Date": {date}}
		d, ok := rateLimitReset(h, time.Unix(0, now))
		if ok && (d < 0 || d > MaxThrottleWait) {
			t.Errorf("reset %q date %q: wait %s", reset, date, d)
		}
		if b := Backoff(DefaultMinWait, DefaultMaxWait, 3, &http.Response{StatusCode: http.StatusTooManyRequests, Header: h}); b < 0 {
			t.Errorf("backoff %s", b)
		}
	})
}

// TestAssertionFileIsReadPerTokenRequest: the federated token file
// rotates, so each token request sends what the file holds then.
func TestAssertionFileIsReadPerTokenRequest(t *testing.T) {
	t.Parallel()
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/token" {
			_ = r.ParseForm()
			got = append(got, r.PostForm.Get("client_assertion"))
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"access_token":"t%d","token_type":"Bearer","expires_in":1}`, len(got)) // expires at once: a new token each request
			return
		}
		fmt.Fprint(w, `{}`)
	}))
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "token")
	c, err := New(context.Background(), Options{BaseURL: srv.URL, Auth: AssertionFile{TokenURL: srv.URL + "/token", ClientID: "app", Path: file}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{"first-token", "rotated-token"} {
		if err := os.WriteFile(file, []byte(tok+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := c.GetJSON(context.Background(), "/x", nil, &struct{}{}); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(got, []string{"first-token", "rotated-token"}) {
		t.Errorf("assertions sent %q, want the file's content at each token request", got)
	}
}

// FuzzStringMember: no body makes the member reading panic; a member
// found is the one the decoded body has.
func FuzzStringMember(f *testing.F) {
	for _, s := range []string{`{"users":[{"nextPageToken":"inner"}],"nextPageToken":"t"}`, `[`, `{"nextPageToken":1}`, `{"a":{"b":[1,2]},"nextPageToken":"x"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		tok, err := StringMember([]byte(body), "nextPageToken")
		if err != nil || tok == "" {
			return
		}
		var p struct {
			NextPageToken any `json:"nextPageToken"`
		}
		if Decode(strings.NewReader(body), &p) == nil && p.NextPageToken != tok {
			t.Errorf("member %q, the body says %v", tok, p.NextPageToken)
		}
	})
}
