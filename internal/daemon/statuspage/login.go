package statuspage

import (
	"crypto/subtle"
	"html/template"
	"net"
	"net/http"
	"strings"
)

// maxFormBytes bounds the body of the page's forms (a token, a form
// token, a digest).
const maxFormBytes = 4 << 10

// login serves /login: GET shows the form that logs a browser in with the
// page's token, POST checks it (a wrong one is a failed login) and sets
// the session cookie (Secure, HttpOnly, SameSite=Strict); POST /logout is
// served by the page's routes.
func (p *Page) login(w http.ResponseWriter, r *http.Request, c *Credentials, client string) {
	switch {
	case r.Method == http.MethodGet:
		p.unauthorized(w, r, c, false, "")
		return
	case r.Method != http.MethodPost:
		http.Error(w, "use GET or POST", http.StatusMethodNotAllowed)
		return
	case c.Token == "":
		p.unauthorized(w, r, c, false, "this page has no token to log in with: use the user name and password your browser asks for")
		return
	}
	if err := p.crossOrigin.Check(r); err != nil {
		http.Error(w, "a login from another site is refused", http.StatusForbidden)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	got := r.PostFormValue("token")
	if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(c.Token)) != 1 {
		p.counted(r, client, authFailed, "login form")
		p.unauthorized(w, r, c, true, "")
		return
	}
	p.counted(r, client, authOK, "login form")
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: p.sessions.cookie(c), MaxAge: int(sessionFor.Seconds()),
		Secure: true, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	seeOther(w, "./")
}

// logout ends the browser's session (POST /logout).
func (p *Page) logout(w http.ResponseWriter, _ *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", MaxAge: -1, Secure: true, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	seeOther(w, "login")
}

// seeOther sends the browser to ref, a reference relative to the page's
// address as the browser knows it, so that a page a reverse proxy serves
// under a path prefix (https://host/orgsync/) keeps it. (http.Redirect
// would make ref absolute from the path the page sees, the prefix
// stripped.) The session cookie has no Path for the same reason: the
// browser scopes it to the folder of the login's address, the prefix
// included.
func seeOther(w http.ResponseWriter, ref string) {
	w.Header().Set("Location", ref)
	w.WriteHeader(http.StatusSeeOther)
}

// unauthorized answers 401 with a page that says what to do: people log
// in with the token (the form) or the user name and password the browser
// asks for; programs send the token; failed says the last try was wrong.
func (p *Page) unauthorized(w http.ResponseWriter, r *http.Request, c *Credentials, failed bool, note string) {
	if c.User != "" {
		w.Header().Set("WWW-Authenticate", `Basic realm="orgsync status page", charset="UTF-8"`)
	} else {
		w.Header().Set("WWW-Authenticate", `Bearer realm="orgsync status page"`)
	}
	htmlHeaders(w)
	w.WriteHeader(http.StatusUnauthorized)
	_ = loginPage.Execute(w, map[string]any{"Token": c.Token != "", "Basic": c.User != "", "Failed": failed, "Note": note,
		"PlainHTTP": c.Token != "" && plainHTTPBeyondLoopback(r), "Root": toRoot(r)})
}

// toRoot is the reference from r's address to the page's root ("",
// "../../" from /approvals/ID/review), relative as seeOther's are.
func toRoot(r *http.Request) string {
	return strings.Repeat("../", max(strings.Count(r.URL.Path, "/")-1, 0))
}

// plainHTTPBeyondLoopback reports whether r came over plain HTTP from
// another machine: a browser then keeps no Secure cookie, so the token
// login cannot hold (TLS in front is needed).
func plainHTTPBeyondLoopback(r *http.Request) bool {
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		return false
	}
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	ip := net.ParseIP(host)
	return host != "localhost" && (ip == nil || !ip.IsLoopback())
}

var loginPage = template.Must(template.New("login").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>orgsync status: log in</title>
<style>body { font-family: system-ui, sans-serif; margin: 1.5em 2em; color: #222; max-width: 46em; }
.failure { color: #a00; font-weight: bold; } input { font-size: 100%; padding: .3em; width: 28em; }
button { font-size: 100%; padding: .35em 1em; } code { background: #f3f3f3; padding: 0 .2em; }</style></head>
<body><h1>orgsync status page: authentication needed</h1>
{{if .Failed}}<p class="failure" id="login-failed">Those credentials are not the page's. Failed logins are logged, and an address that fails too often is locked out for a while.</p>{{end}}
{{with .Note}}<p class="failure">{{.}}</p>{{end}}
{{if .Token}}<h2>People: log in with the page's token</h2>
<form method="post" action="{{.Root}}login"><p><label for="token">Token (<code>status.token</code> in orgsync's configuration)</label><br>
<input type="password" id="token" name="token" autocomplete="current-password" required></p>
<p><button type="submit" id="login">Log in</button></p></form>
{{if .PlainHTTP}}<p class="failure" id="plain-http">This page came over plain HTTP from another machine: your browser keeps the session only over HTTPS, so the login cannot hold, and the token would cross the network in clear. Put TLS in front of the daemon (a reverse proxy or an ingress).</p>{{end}}
<p>Your browser then keeps a session for 12 hours (a cookie sent only to this page, only over HTTPS or to this machine, never to scripts); changing the token ends every session.</p>{{end}}
{{if .Basic}}<h2>People: your user name and password</h2>
<p>Reload this page: your browser asks for the user name and password (HTTP basic authentication, <code>status.username</code> and <code>status.password</code>).</p>{{end}}
<h2>Programs</h2>
<p>Send {{if .Token}}<code>Authorization: Bearer &lt;token&gt;</code>{{else}}basic authentication{{end}} with every request, e.g. <code>curl -H "Authorization: Bearer $TOKEN" URL/api/runs</code>{{if not .Token}} (<code>curl -u USER URL/api/runs</code>){{end}}.
<code>/healthz</code>, <code>/readyz</code> and <code>/metrics</code> need no authentication.</p>
</body></html>
`))
