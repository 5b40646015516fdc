package daemon

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/internal/store"
)

// TestPageBehindAProxyUnderAPrefix: the status page served by a reverse
// proxy under a path prefix (https://host/orgsync/, the prefix stripped,
// TLS at the proxy), as a browser uses it: the login form, its redirect
// and the session cookie, the review and the approve forms with their
// anti-forgery tokens, the links back and the logout all stay under the
// prefix, and the approval is applied.
func TestPageBehindAProxyUnderAPrefix(t *testing.T) {
	t.Parallel()
	d, _, id := heldDaemon(t, "status:\n  token: {file: "+tokenFile(t)+"}\n")

	page := httptest.NewServer(d.mux())
	t.Cleanup(page.Close)
	target, _ := url.Parse(page.URL)
	mux := http.NewServeMux()
	mux.Handle("/orgsync/", http.StripPrefix("/orgsync", httputil.NewSingleHostReverseProxy(target)))
	front := httptest.NewTLSServer(mux)
	t.Cleanup(front.Close)
	jar, _ := cookiejar.New(nil)
	client := front.Client()
	client.Jar = jar
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !strings.HasPrefix(req.URL.Path, "/orgsync/") {
			t.Errorf("redirected out of the prefix: %s (from %s)", req.URL, via[len(via)-1].URL)
		}
		return nil
	}
	// do sends a request as a browser of the page would (its own origin),
	// following redirects, and returns the final address and page.
	do := func(method, at string, form url.Values) (*url.URL, int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, at, strings.NewReader(form.Encode()))
		if method == http.MethodPost {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", front.URL)
			req.Header.Set("Sec-Fetch-Site", "same-origin")
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.Request.URL, resp.StatusCode, string(b)
	}
	resolve := func(base *url.URL, ref string) string { u, _ := base.Parse(ref); return u.String() }
	formOf := func(body, action string) url.Values {
		t.Helper()
		m := regexp.MustCompile(`action="` + regexp.QuoteMeta(action) + `"><input type="hidden" name="csrf" value="([0-9a-f]+)">(?:<input type="hidden" name="reviewed" value="([0-9a-f]+)">)?`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no form posts to %s:\n%s", action, body)
		}
		return url.Values{"csrf": {m[1]}, "reviewed": {m[2]}}
	}

	at, code, body := do(http.MethodGet, front.URL+"/orgsync/", nil)
	if code != http.StatusUnauthorized || !strings.Contains(body, `action="login"`) {
		t.Fatalf("the page before logging in: %d\n%s", code, body)
	}
	at, code, body = do(http.MethodPost, resolve(at, "login"), url.Values{"token": {testToken}})
	if code != http.StatusOK || at.Path != "/orgsync/" || !strings.Contains(body, "approvals/"+id+"/review") {
		t.Fatalf("after logging in: %d at %s\n%s", code, at, body)
	}
	if len(jar.Cookies(at)) == 0 || len(jar.Cookies(&url.URL{Scheme: "https", Host: at.Host, Path: "/elsewhere/"})) != 0 {
		t.Errorf("the session cookie: %v under the prefix, %v elsewhere on the proxy's host; want it under the prefix only",
			jar.Cookies(at), jar.Cookies(&url.URL{Scheme: "https", Host: at.Host, Path: "/elsewhere/"}))
	}
	review := "approvals/" + id + "/review"
	at, code, body = do(http.MethodPost, resolve(at, review), formOf(body, review))
	if code != http.StatusOK || at.Path != "/orgsync/"+review || !strings.Contains(body, "approving sends") {
		t.Fatalf("the review: %d at %s\n%s", code, at, body)
	}
	if back := resolve(at, "../../"); back != front.URL+"/orgsync/" {
		t.Errorf("the review's way back leads to %s", back)
	}
	at, code, body = do(http.MethodPost, resolve(at, "approve"), formOf(body, "approve"))
	if code != http.StatusOK || !strings.Contains(body, "applied:") || approval(t, d, id).Status != store.Approved {
		t.Fatalf("applying the review: %d at %s, approval %s\n%s", code, at, approval(t, d, id).Status, body)
	}
	at, _, body = do(http.MethodGet, front.URL+"/orgsync/", nil)
	at, code, body = do(http.MethodPost, resolve(at, "logout"), url.Values{})
	if at.Path != "/orgsync/login" || code != http.StatusUnauthorized || !strings.Contains(body, `action="login"`) {
		t.Errorf("after logging out: %d at %s\n%s", code, at, body)
	}
	if _, code, _ = do(http.MethodGet, front.URL+"/orgsync/", nil); code != http.StatusUnauthorized {
		t.Errorf("the page after logging out: %d, want 401", code)
	}
	// A form sent once the session is gone gets the login form, which
	// logs in at the page's root.
	at, code, body = do(http.MethodPost, front.URL+"/orgsync/"+review, url.Values{})
	m := regexp.MustCompile(`<form method="post" action="([^"]*)"`).FindStringSubmatch(body)
	if code != http.StatusUnauthorized || m == nil || resolve(at, m[1]) != front.URL+"/orgsync/login" {
		t.Errorf("a review without a session: %d at %s, its login form posts to %v\n%s", code, at, m, body)
	}
}
