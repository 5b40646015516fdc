package statuspage

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzPage sends any request (method, path and query, Host, the
// Authorization header, a cookie, a form body) to a page protected by a
// token and to an open one. Whatever comes in: no panic, the security
// headers on every answer, and without the page's credentials no run,
// approval or history leaks from the protected page and no decision is
// taken; the open page decides nothing either.
func FuzzPage(f *testing.F) {
	for _, seed := range [][6]string{
		{"GET", "/", "127.0.0.1:9090", "", "", ""},
		{"GET", "/api/runs", "127.0.0.1", "Bearer " + theToken, "", ""},
		{"GET", "/history?user=mallory@example.com", "localhost", "Bearer " + theToken, "", ""},
		{"GET", "/history?user=%3Cscript%3E", "[::1]:9090", "Basic b3BzOnB3", "", ""},
		{"POST", "/approvals/0123abcd/review", "127.0.0.1", "Bearer " + theToken, "", "csrf=00"},
		{"POST", "/approvals/0123abcd/approve", "127.0.0.1", "Bearer " + theToken, "", "csrf=00&reviewed=d1"},
		{"POST", "/approvals/../reject", "127.0.0.1", "bearer x", "", "csrf=%zz"},
		{"POST", "/login", "127.0.0.1", "", "", "token=" + theToken},
		{"POST", "/login", "evil.example", "", "", "token=wrong"},
		{"GET", "/", "127.0.0.1", "", sessionCookie + "=AAAA", ""},
		{"POST", "/logout", "127.0.0.1", "Bearer " + theToken, "", ""},
		{"GET", "//api/runs?x=%00", "rebound.example", "Basic", "", ""},
		{"PUT", "/approvals/0123abcd/approve", "127.0.0.1", "Bearer " + theToken, "", strings.Repeat("a=b&", 2000)},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3], seed[4], seed[5])
	}
	f.Fuzz(func(t *testing.T, method, target, host, authz, cookie, body string) {
		if !validMethod(method) || !strings.HasPrefix(target, "/") || strings.ContainsAny(target, " \r\n\t") {
			return // not a request a server would parse
		}
		decided := 0
		decide := func(context.Context, Decision) (Outcome, error) { decided++; return Outcome{Text: "done"}, nil }
		token := Headers(protected(&Access{Credentials: Credentials{Token: theToken}}, decide))
		open := Headers(protected(nil, decide))
		for name, h := range map[string]http.Handler{"protected": token, "open": open} {
			req, err := http.NewRequest(method, "http://x"+target, strings.NewReader(body))
			if err != nil {
				return
			}
			req.Host, req.RemoteAddr = host, "192.0.2.1:1234"
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Sec-Fetch-Site", "same-origin")
			if validHeader(authz) {
				req.Header.Set("Authorization", authz)
			}
			if validHeader(cookie) {
				req.Header.Set("Cookie", cookie)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Header().Get("X-Frame-Options") != "DENY" || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Fatalf("%s %s %s: answered without the security headers: %v", name, method, target, rec.Header())
			}
			authed := authz == "Bearer "+theToken || strings.EqualFold(authz, "bearer "+theToken)
			if name == "protected" && !authed && rec.Code == http.StatusOK && strings.Contains(rec.Body.String(), "mallory") {
				t.Fatalf("%s %s without the token: 200 with the page's data", method, target)
			}
		}
		if decided > 0 {
			t.Fatalf("%s %s: a decision without the page's form token", method, target)
		}
	})
}

// validMethod reports whether m is an HTTP token a request could carry.
func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for _, r := range m {
		if r < '!' || r > '~' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return true
}

// validHeader reports whether v could be a header's value.
func validHeader(v string) bool {
	return v != "" && !strings.ContainsAny(v, "\r\n\x00")
}
