package statuspage

import (
	"net"
	"net/http"
	"strings"
)

// The headers of every response of the daemon (Headers): no framing
// (clickjacking), no guessing of content types, no referrer, nothing kept
// in caches, no window or resource shared with another origin.
var securityHeaders = [][2]string{
	{"X-Frame-Options", "DENY"},
	{"Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"},
	{"X-Content-Type-Options", "nosniff"},
	{"Referrer-Policy", "no-referrer"},
	{"Cache-Control", "no-store"},
	{"Cross-Origin-Opener-Policy", "same-origin"},
	{"Cross-Origin-Resource-Policy", "same-origin"},
}

// pageCSP is the Content-Security-Policy of the page's HTML: nothing
// loaded, no script, forms posted to the page itself only, never framed.
const pageCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// Headers sets the security headers on every response of h (the
// daemon's whole mux: the page, /healthz, /readyz and /metrics), before
// h writes; the page's HTML sets its own Content-Security-Policy, which
// forbids framing too.
func Headers(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, kv := range securityHeaders {
			w.Header().Set(kv[0], kv[1])
		}
		h.ServeHTTP(w, r)
	})
}

// htmlHeaders sets the headers of an HTML response of the page.
func htmlHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", pageCSP)
}

// hosts decides which Host names a page without authentication answers
// (against DNS rebinding: a name the attacker controls, pointed at this
// machine, is not one of them).
type hosts struct {
	names map[string]bool // lower case, without a trailing dot
}

// newHosts allows, beside IP addresses and localhost, the host of the
// listen address and the names given (status.allowedHosts).
func newHosts(listen string, names []string) *hosts {
	h := &hosts{names: map[string]bool{}}
	if host, _, err := net.SplitHostPort(listen); err == nil && host != "" {
		h.names[normalHost(host)] = true
	}
	for _, n := range names {
		h.names[normalHost(n)] = true
	}
	return h
}

// allowed reports whether a request's Host (with or without a port) is
// one of the page's own: an IP address (a browser that sends one
// navigated to it, so no name was rebound), localhost, or a name given.
func (h *hosts) allowed(hostport string) bool {
	host := hostport
	if hh, _, err := net.SplitHostPort(hostport); err == nil {
		host = hh
	}
	host = normalHost(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	switch {
	case host == "":
		return false
	case net.ParseIP(host) != nil:
		return true
	case host == "localhost" || strings.HasSuffix(host, ".localhost"):
		return true
	}
	return h.names[host]
}

// normalHost is a host name in lower case, without a trailing dot.
func normalHost(h string) string { return strings.TrimSuffix(strings.ToLower(h), ".") }

// misdirected answers a request for a Host the open page does not
// answer, saying what to do (the Host itself is not repeated).
func misdirected(w http.ResponseWriter) {
	http.Error(w, "this status page has no authentication, so it answers only its own host names: the listen address, localhost "+
		"and IP addresses (against DNS rebinding); to reach it by another name, add that name to status.allowedHosts "+
		"(or protect the page with status.token or status.username and status.password)", http.StatusMisdirectedRequest)
}
