package statuspage

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/reconcile"
)

// TestUserLookup: /history?user= shows, without a script, what orgsync
// did to that user and why (the latest first, the failure's code, the
// approval and who approved it) and the changes held for them now;
// another user has none; every value is escaped.
func TestUserLookup(t *testing.T) {
	t.Parallel()
	h := protected(nil, nil)
	code, body := get(t, h, "/history?user=Mallory@Example.com")
	if code != 200 {
		t.Fatalf("lookup: %d\n%s", code, body)
	}
	for _, want := range []string{`<form method="get" action="history">`, `value="Mallory@Example.com"`, "2 changes recorded of Mallory@Example.com",
		"add &lt;b&gt;Design&lt;/b&gt;", `<td class="failed">failed error.group.not_found</td>`, "(approval 0123abcd, approved by ops via status page, basic authentication)",
		"Held for approval now:", "- remove mallory@example.com (federatedID), in approval 0123abcd"} {
		if !strings.Contains(body, want) {
			t.Errorf("the lookup lacks %q", want)
		}
	}
	if strings.Index(body, "remove Marketing") > strings.Index(body, "create federatedID") {
		t.Error("the lookup is not the latest first")
	}
	if strings.Contains(body, "<script") || strings.Contains(body, "<b>") {
		t.Error("the lookup has a script or an unescaped value")
	}
	_, body = get(t, h, "/history?user=%3Cscript%3Ealert(1)%3C/script%3E")
	if strings.Contains(body, "<script>") || !strings.Contains(body, "0 changes recorded of &lt;script&gt;") {
		t.Errorf("a hostile user name:\n%s", body)
	}
	if code, _ := get(t, h, "/history?user="+strings.Repeat("a", maxUserLen+1)); code != http.StatusBadRequest {
		t.Errorf("a user name too long: %d", code)
	}
	if _, body := get(t, h, "/history"); strings.Contains(body, "recorded of") || !strings.Contains(body, `id="user"`) {
		t.Errorf("the lookup without a user shows no form, or results:\n%s", body)
	}
}

// TestTokenLogin: a browser without credentials on a token page gets a
// 401 page that says what people and programs do, with a login form; the
// token logs in with a Secure, HttpOnly, SameSite=Strict session cookie;
// a wrong token is a failed login; a rotated token ends the session; a
// login from another site is refused.
func TestTokenLogin(t *testing.T) {
	t.Parallel()
	a := &Access{Credentials: Credentials{Token: theToken}}
	p := New(Options{Status: sample, Access: func() *Access { return a }})
	r := request(p, http.MethodGet, "/", "127.0.0.1:9090", "192.0.2.1:1")
	body := r.Body.String()
	if r.Code != 401 || r.Header().Get("WWW-Authenticate") != `Bearer realm="orgsync status page"` || !strings.Contains(body, `<form method="post" action="login">`) ||
		!strings.Contains(body, "People: log in with the page's token") || !strings.Contains(body, "Authorization: Bearer &lt;token&gt;") || strings.Contains(body, "mallory") {
		t.Fatalf("the 401 page: %d %v\n%s", r.Code, r.Header(), body)
	}
	if code, body := post(p, "/login", []string{"token", "wrong"}); code != 401 || !strings.Contains(body, `id="login-failed"`) {
		t.Errorf("a wrong token: %d\n%s", code, body)
	}
	if code, _ := post(p, "/login", []string{"token", theToken}, "Sec-Fetch-Site", "cross-site"); code != http.StatusForbidden {
		t.Errorf("a login from another site: %d, want 403", code)
	}
	rec := httptestPost(p, "/login", "token="+theToken)
	cookies := rec.Result().Cookies()
	if rec.Code != http.StatusSeeOther || len(cookies) != 1 || !cookies[0].Secure || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode ||
		cookies[0].Name != sessionCookie {
		t.Fatalf("login: %d %v", rec.Code, rec.Header())
	}
	session := []string{"Cookie", sessionCookie + "=" + cookies[0].Value}
	if r := request(p, http.MethodGet, "/", "127.0.0.1:9090", "192.0.2.1:1", session...); r.Code != 200 || !strings.Contains(r.Body.String(), `id="logout"`) {
		t.Errorf("the page with the session: %d", r.Code)
	}
	forged := []string{"Cookie", sessionCookie + "=" + strings.Repeat("A", len(cookies[0].Value))}
	if r := request(p, http.MethodGet, "/", "127.0.0.1:9090", "192.0.2.1:1", forged...); r.Code != 401 {
		t.Errorf("a forged session: %d", r.Code)
	}
	a = &Access{Credentials: Credentials{Token: strings.ToUpper(theToken)}}
	if r := request(p, http.MethodGet, "/", "127.0.0.1:9090", "192.0.2.1:1", session...); r.Code != 401 {
		t.Errorf("the session after the token changed: %d, want 401", r.Code)
	}
	r = request(p, http.MethodGet, "/login", "orgsync.example.org", "192.0.2.1:1")
	if !strings.Contains(r.Body.String(), `id="plain-http"`) {
		t.Error("the login page over plain HTTP from another machine does not say the session cannot hold")
	}
}

// httptestPost posts a raw form body to path on h, on loopback.
func httptestPost(h http.Handler, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Host = "127.0.0.1:9090"
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestBannerStates: failing (red), changes held for approval (amber:
// how many, since when, which approval, the commands and the buttons),
// in sync (green); and what each decision did.
func TestBannerStates(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	runs := []store.Run{
		{Org: "main", Start: t0, End: t0.Add(time.Minute), Result: store.RunSuccess},
		{Org: "emea", Start: t0, End: t0.Add(time.Minute), Result: store.RunHeld},
		{Org: "apac", Start: t0, End: t0.Add(time.Minute), Result: store.RunFailure, Phase: "sources", Error: "users.csv: gone"},
		{Org: "x", Start: t0, End: t0.Add(time.Minute), Result: store.RunSuccess, Mode: "approve", Approval: "aaaaaaaa", Changes: map[string]int{"remove": 3}},
	}
	remove := reconcile.Change{Kind: reconcile.KindRemove, User: reconcile.User{Type: reconcile.FederatedID, Email: "m@example.com"}}
	pending := []store.Approval{{ID: "0123abcd", Org: "emea", Created: t0, Status: store.Pending, Changes: []reconcile.Change{remove, remove}}}
	b := Banner(runs, pending)
	states := map[string]string{}
	for _, l := range b {
		states[l.Org] = l.State
	}
	if states["main"] != StateInSync || states["emea"] != StateHeld || states["apac"] != StateFailing || b[1].HeldChanges != 2 || !b[1].HeldSince.Equal(t0) {
		t.Errorf("banner %+v", b)
	}
	rec := &recorder{}
	p := New(Options{Status: func() Status { return Status{Now: t0, Runs: runs, Pending: pending} }, Decide: rec.decide,
		Access: func() *Access { return &Access{Credentials: Credentials{User: "ops", Password: "pw"}} }})
	_, body := get(t, p, "/", basicOps...)
	for _, want := range []string{`class="banner banner-in-sync" id="banner-main"`, `class="banner banner-failing" id="banner-apac"`,
		`class="banner banner-held" id="held-emea"><strong>emea: 2 changes held for approval since 2026-11-25 10:00:00 UTC`,
		"<code>orgsync approve 0123abcd</code>", `id="banner-review-0123abcd"`, `id="banner-reject-0123abcd"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, tc := range []struct {
		a    store.Approval
		want string
	}{
		{store.Approval{ID: "aaaaaaaa", Status: store.Approved, Changes: make([]reconcile.Change, 8)}, "approved and applied 3 changes"},
		{store.Approval{ID: "bbbbbbbb", Status: store.Approved, Changes: make([]reconcile.Change, 8)}, "approved and applied 8 changes"},
		{store.Approval{Status: store.Rejected, Changes: make([]reconcile.Change, 8)}, "rejected 8 changes; the next sync holds those the sources still ask for again"},
		{store.Approval{Status: store.Rejected, Changes: make([]reconcile.Change, 1), HeldAgain: "cccccccc"}, "rejected 1 change; the next sync held those still asked for again, in approval cccccccc"},
		{store.Approval{Status: store.Dropped, Narrowed: []store.Narrowing{{Dropped: make([]reconcile.Change, 2)}}}, "dropped: its 2 changes are no longer asked for"},
	} {
		if got := Decided(tc.a, runs); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s %s: %q, want %q", tc.a.ID, tc.a.Status, got, tc.want)
		}
	}
}

// TestChartDrawsEveryRun: every run has a bar and a mark of its result's
// colour, a failed run that changed nothing included; on the log scale a
// run of 1,000 changes leaves a run of 3 more than a sliver.
func TestChartDrawsEveryRun(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	runs := []store.Run{
		{Org: "o", Start: t0, End: t0.Add(time.Hour), Result: store.RunSuccess, Changes: map[string]int{"create": 1000}},
		{Org: "o", Start: t0, End: t0.Add(time.Second), Result: store.RunFailure},
		{Org: "o", Start: t0, End: t0.Add(2 * time.Second), Result: store.RunHeld, Changes: map[string]int{"create": 3}},
	}
	svg := string(Chart(runs, time.UTC))
	for _, want := range []string{`class="bar failure"`, `class="bar held"`, `class="bar success"`, ">failed<", ">held for approval<", "log scale"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart lacks %q", want)
		}
	}
	if n := strings.Count(svg, `class="mark"`); n != 3 {
		t.Errorf("%d result marks, want 3", n)
	}
	if h := logScale(3, 1000); h < 0.15 {
		t.Errorf("3 of 1000 changes draws %.2f of the height: flattened", h)
	}
	if h := logScale(2, 3600); h < 0.1 {
		t.Errorf("a 2s run beside a 1h one draws %.2f of the height: flattened", h)
	}
}
