package statuspage

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// request serves one request of method to path on h with the Host and
// the header pairs, from the client address from.
func request(h http.Handler, method, path, host, from string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, nil)
	req.Host, req.RemoteAddr = host, from
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestEveryResponseForbidsFraming: every answer of the page, the errors
// and the login included, forbids framing (both headers), sniffing and
// referrers; the HTML's own policy forbids framing too.
func TestEveryResponseForbidsFraming(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	token := Headers(protected(&Access{Credentials: Credentials{Token: theToken}}, rec.decide))
	open := Headers(protected(nil, rec.decide))
	auth := []string{"Authorization", "Bearer " + theToken}
	for _, tc := range []struct {
		name string
		h    http.Handler
		path string
		hdr  []string
		code int
	}{
		{"page", token, "/", auth, 200},
		{"api", token, "/api/runs", auth, 200},
		{"lookup", token, "/history?user=mallory@example.com", auth, 200},
		{"login page", token, "/", nil, 401},
		{"wrong token", token, "/", []string{"Authorization", "Bearer nope"}, 401},
		{"not found", token, "/nothing", auth, 404},
		{"open page", open, "/", nil, 200},
		{"another host", open, "/", nil, 421},
	} {
		host := "127.0.0.1:9090"
		if tc.code == 421 {
			host = "rebound.example:9090"
		}
		r := request(tc.h, http.MethodGet, tc.path, host, "192.0.2.1:1234", tc.hdr...)
		h := r.Header()
		if r.Code != tc.code || h.Get("X-Frame-Options") != "DENY" || !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") ||
			h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("%s: %d %v, want %d with framing, sniffing and referrers forbidden", tc.name, r.Code, h, tc.code)
		}
	}
}

// TestOpenPageAnswersOnlyItsOwnHosts: against DNS rebinding, a page
// without authentication answers only IP addresses, localhost, its
// listen address's name and status.allowedHosts; with authentication
// any name is answered (the credentials are what protect it).
func TestOpenPageAnswersOnlyItsOwnHosts(t *testing.T) {
	t.Parallel()
	open := protected(&Access{Listen: "orgsync.internal:9090", AllowedHosts: []string{"Status.Example.com"}}, nil)
	for host, want := range map[string]int{
		"127.0.0.1:9090":          200,
		"[::1]:9090":              200,
		"10.1.2.3":                200,
		"localhost:9090":          200,
		"app.localhost":           200,
		"orgsync.internal:9090":   200,
		"status.example.com":      200,
		"STATUS.example.com.:443": 200,
		"rebound.example:9090":    421,
		"orgsync.internal.evil":   421,
		"":                        421,
	} {
		r := request(open, http.MethodGet, "/api/runs", host, "192.0.2.1:1234")
		if r.Code != want || (want == 421 && (strings.Contains(r.Body.String(), "mallory") || !strings.Contains(r.Body.String(), "status.allowedHosts"))) {
			t.Errorf("Host %q: %d, want %d\n%s", host, r.Code, want, r.Body)
		}
	}
	token := protected(&Access{Credentials: Credentials{Token: theToken}}, nil)
	if r := request(token, http.MethodGet, "/", "orgsync.example.org", "192.0.2.1:1", "Authorization", "Bearer "+theToken); r.Code != 200 {
		t.Errorf("an authenticated request by name: %d", r.Code)
	}
}

// fakeClock is a settable time for the throttle.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestFailedLoginsAreLoggedAndSlowed: each failed login is logged with
// the client's address; after five, the address is locked out for a
// time that doubles, the right credentials included, while another
// address is not; a burst of 10,000 wrong tries checks 6; a success
// forgets the failures.
func TestFailedLoginsAreLoggedAndSlowed(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zap.WarnLevel)
	clk := &fakeClock{t: time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)}
	a := &Access{Credentials: Credentials{User: "ops", Password: "pw"}}
	p := New(Options{Status: sample, Access: func() *Access { return a }, Log: zap.New(core), Now: clk.now})
	wrong := []string{"Authorization", "Basic b3BzOnB4"}
	const attacker, other = "198.51.100.7:4444", "203.0.113.9:5555"
	codes := map[int]int{}
	for range 10_000 {
		codes[request(p, http.MethodGet, "/", "127.0.0.1", attacker, wrong...).Code]++
	}
	if codes[401] != 6 || codes[429] != 10_000-6 {
		t.Errorf("10,000 wrong tries in a burst: %v, want 6 checked (401) and the rest refused (429)", codes)
	}
	entries := logs.FilterMessage("status page: failed login").All()
	if len(entries) != 6 || entries[0].ContextMap()["client"] != "198.51.100.7" || entries[5].ContextMap()["lockedOutFor"] == nil {
		t.Errorf("logged %v, want the 6 failures with the client's address, the last with the lockout", entries)
	}
	for _, e := range logs.All() {
		if strings.Contains(e.Message+strings.Join(keysOf(e.ContextMap()), " "), "pw") {
			t.Errorf("a log entry names the password: %v", e)
		}
	}
	r := request(p, http.MethodGet, "/", "127.0.0.1", attacker, basicOps...)
	if r.Code != 429 || r.Header().Get("Retry-After") != "1" {
		t.Errorf("the right password while locked out: %d, Retry-After %q; want 429, 1", r.Code, r.Header().Get("Retry-After"))
	}
	if r := request(p, http.MethodGet, "/", "127.0.0.1", other, basicOps...); r.Code != 200 {
		t.Errorf("another address: %d, want 200", r.Code)
	}
	clk.add(time.Second)
	request(p, http.MethodGet, "/", "127.0.0.1", attacker, wrong...) // the 7th: locked out for 2s
	if r := request(p, http.MethodGet, "/", "127.0.0.1", attacker, wrong...); r.Header().Get("Retry-After") != "2" {
		t.Errorf("the lockout after the 7th failure: Retry-After %q, want 2 (it doubles)", r.Header().Get("Retry-After"))
	}
	clk.add(2 * time.Second)
	if r := request(p, http.MethodGet, "/", "127.0.0.1", attacker, basicOps...); r.Code != 200 {
		t.Errorf("the right password after the lockout: %d", r.Code)
	}
	if r := request(p, http.MethodGet, "/", "127.0.0.1", attacker, wrong...); r.Code != 401 {
		t.Errorf("a failure after a success: %d, want 401 (the count starts afresh)", r.Code)
	}
	if r := request(p, http.MethodGet, "/", "127.0.0.1", "[2001:db8::1]:1", wrong...); r.Code != 401 {
		t.Fatal(r.Code)
	}
	if got := clientOf(httptest.NewRequest("GET", "/", nil)); got != "192.0.2.1" {
		t.Errorf("clientOf %q", got)
	}
	req := httptest.NewRequest("GET", "/", nil)
	req.RemoteAddr = "[2001:db8::1:2:3:4]:1"
	if got := clientOf(req); got != "2001:db8::/64" {
		t.Errorf("an IPv6 client is counted as %q, want its /64", got)
	}
}

func keysOf(m map[string]any) []string {
	var out []string
	for k, v := range m {
		out = append(out, k, toString(v))
	}
	return out
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

// TestFormTokensBoundToTheCredentials: a form shown before the page's
// password (or token) changed is refused after it, even to the same user
// with the new password.
func TestFormTokensBoundToTheCredentials(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	a := &Access{Credentials: Credentials{User: "ops", Password: "pw"}}
	var mu sync.Mutex
	p := New(Options{Status: sample, Decide: rec.decide, Access: func() *Access { mu.Lock(); defer mu.Unlock(); return a }})
	_, body := get(t, p, "/", basicOps...)
	reject := formToken(t, body, "approvals/0123abcd/reject")
	mu.Lock()
	a = &Access{Credentials: Credentials{User: "ops", Password: "new"}}
	mu.Unlock()
	newPW := []string{"Authorization", "Basic b3BzOm5ldw=="} // ops:new
	if code, _ := post(p, "/approvals/0123abcd/reject", []string{"csrf", reject}, newPW...); code != http.StatusForbidden || len(rec.decided) != 0 {
		t.Errorf("a form of the old password: %d, decided %v; want 403 and nothing decided", code, rec.decided)
	}
	_, body = get(t, p, "/", newPW...)
	if code, _ := post(p, "/approvals/0123abcd/reject", []string{"csrf", formToken(t, body, "approvals/0123abcd/reject")}, newPW...); code != 200 {
		t.Errorf("a form of the new password: %d", code)
	}
}

// TestApproveTakesAConfirmStep: the page's Approve shows what approving
// sends, with a button that applies exactly that (its form bound to what
// was shown) and a cancel styled apart; a review that no longer holds is
// shown afresh, nothing applied.
func TestApproveTakesAConfirmStep(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	h := protected(&Access{Credentials: Credentials{User: "ops", Password: "pw"}}, rec.decide)
	_, body := get(t, h, "/", basicOps...)
	if !strings.Contains(body, `class="approve" id="approve-0123abcd">Review and approve…`) || !strings.Contains(body, `class="reject" id="reject-0123abcd"`) {
		t.Errorf("the page's buttons are not styled apart:\n%s", body)
	}
	code, review := post(h, "/approvals/0123abcd/review", []string{"csrf", formToken(t, body, "approvals/0123abcd/review")}, basicOps...)
	if code != 200 || !strings.Contains(review, "remove mallory@example.com") || !strings.Contains(review, `class="apply" id="apply-0123abcd">Apply these changes`) ||
		!strings.Contains(review, `<a class="cancel" id="cancel" href="../../">`) || !strings.Contains(review, `name="reviewed" value="d1"`) {
		t.Fatalf("the review: %d\n%s", code, review)
	}
	apply := formToken(t, review, "approve")
	if code, _ := post(h, "/approvals/0123abcd/approve", []string{"csrf", apply, "reviewed", "d2"}, basicOps...); code != http.StatusForbidden {
		t.Errorf("the apply form with another digest than shown: %d, want 403", code)
	}
	if code, _ := post(h, "/approvals/0123abcd/approve", []string{"csrf", formToken(t, body, "approvals/0123abcd/review"), "reviewed", "d1"}, basicOps...); code != http.StatusForbidden {
		t.Errorf("the review's token used to apply: %d, want 403", code)
	}
	code, done := post(h, "/approvals/0123abcd/approve", []string{"csrf", apply, "reviewed", "d1"}, basicOps...)
	if code != 200 || !strings.Contains(done, "Approval 0123abcd: approved") {
		t.Errorf("applying what was reviewed: %d\n%s", code, done)
	}
	if want := []string{"0123abcd review by ops via status page, basic authentication", "0123abcd approve by ops via status page, basic authentication"}; strings.Join(rec.decided, "|") != strings.Join(want, "|") {
		t.Errorf("decided %v, want %v", rec.decided, want)
	}
	// What approving applies changed: shown again, with its own form.
	changed := &recorder{}
	h = protected(&Access{Credentials: Credentials{User: "ops", Password: "pw"}}, func(ctx context.Context, d Decision) (Outcome, error) {
		if d.Action == ActionApprove {
			d.Reviewed = "stale"
		}
		return changed.decide(ctx, d)
	})
	_, body = get(t, h, "/", basicOps...)
	_, review = post(h, "/approvals/0123abcd/review", []string{"csrf", formToken(t, body, "approvals/0123abcd/review")}, basicOps...)
	code, again := post(h, "/approvals/0123abcd/approve", []string{"csrf", formToken(t, review, "approve"), "reviewed", "d1"}, basicOps...)
	if code != http.StatusConflict || !strings.Contains(again, `id="changed"`) || !strings.Contains(again, `name="reviewed" value="d2"`) {
		t.Errorf("a review that no longer holds: %d\n%s", code, again)
	}
}
