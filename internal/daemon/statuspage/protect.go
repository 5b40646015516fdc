package statuspage

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/orgsync/orgsync/internal/store"
)

// Secrets reads the page's token, user and password (empty when unset).
type Secrets func() (token, user, password string, err error)

// Protect requires a bearer token (token) or HTTP basic authentication
// (user, password) of h's requests; with neither set it is h, and nothing
// can be decided on the page. The secrets are read by load at each
// request, so that rotated ones apply at once; one that cannot be read is
// told to onError (to log it) and answered 500. h finds who the request
// authenticated as with Who.
func Protect(h http.Handler, load Secrets, onError func(error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, user, password, err := load()
		if err != nil {
			if onError != nil {
				onError(err)
			}
			http.Error(w, "the status page's secret cannot be read (the daemon's log says why)", http.StatusInternalServerError)
			return
		}
		if token == "" && user == "" {
			h.ServeHTTP(w, r)
			return
		}
		if who, ok := allowed(r, token, user, password); ok {
			h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), whoKey{}, who)))
			return
		}
		if user != "" {
			w.Header().Set("WWW-Authenticate", `Basic realm="orgsync", charset="UTF-8"`)
		} else {
			w.Header().Set("WWW-Authenticate", `Bearer realm="orgsync"`)
		}
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	})
}

// whoKey keys the authenticated identity in a request's context.
type whoKey struct{}

// Who is who r authenticated as on the page, and how; false when the
// page has no authentication.
func Who(r *http.Request) (store.Decider, bool) {
	who, ok := r.Context().Value(whoKey{}).(store.Decider)
	return who, ok
}

// allowed reports whether r carries the token or the user and password,
// and who it is.
func allowed(r *http.Request, token, user, password string) (store.Decider, bool) {
	if token != "" {
		got, ok := bearer(r.Header.Get("Authorization"))
		if ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1 {
			return store.Decider{By: "status.token holder", Via: "status page (bearer token)"}, true
		}
	}
	if user != "" {
		u, p, ok := r.BasicAuth()
		if ok && subtle.ConstantTimeCompare([]byte(u), []byte(user))&subtle.ConstantTimeCompare([]byte(p), []byte(password)) == 1 {
			return store.Decider{By: user, Via: "status page (basic authentication)"}, true
		}
	}
	return store.Decider{}, false
}

// bearer is the token of an "Authorization: Bearer <token>" header.
func bearer(h string) (string, bool) {
	const prefix = "bearer "
	if len(h) <= len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return "", false
	}
	return h[len(prefix):], true
}
