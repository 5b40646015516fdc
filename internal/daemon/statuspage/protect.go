package statuspage

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/store"
)

// Credentials are what the page's requests authenticate with, read once
// by the daemon (at start and when it reads its configuration again),
// never at a request. With neither Token nor User the page is open.
type Credentials struct {
	Token          string
	User, Password string
}

// open reports whether the page has no authentication.
func (c *Credentials) open() bool { return c == nil || (c.Token == "" && c.User == "") }

// fingerprint identifies the credentials: form tokens and sessions are
// bound to it, so that a rotated token or password invalidates them.
func (c *Credentials) fingerprint() []byte {
	m := sha256.New()
	for _, s := range []string{c.Token, c.User, c.Password} {
		_ = binary.Write(m, binary.BigEndian, uint64(len(s)))
		m.Write([]byte(s))
	}
	return m.Sum(nil)
}

// How a request authenticated, as its decisions record it ("ops (status
// page, basic authentication)").
const (
	viaBearer  = "status page, bearer token"
	viaBasic   = "status page, basic authentication"
	viaSession = "status page, token login"
	// tokenHolder is who a request that shows the token is.
	tokenHolder = "status.token holder"
)

// The session a browser gets by logging in with the token.
const (
	sessionCookie = "orgsync_session"
	sessionFor    = 12 * time.Hour
)

// auth is what a request presented, and whether it holds.
type auth int

const (
	authNone   auth = iota // no credentials
	authOK                 // the page's credentials
	authFailed             // credentials that are not the page's
)

// authenticate checks the credentials r presents against c: a bearer
// token, basic authentication, or a session cookie of the token login.
func (p *Page) authenticate(r *http.Request, c *Credentials) (store.Decider, auth) {
	if h := r.Header.Get("Authorization"); h != "" {
		if got, ok := bearer(h); ok {
			if c.Token != "" && subtle.ConstantTimeCompare([]byte(got), []byte(c.Token)) == 1 {
				return store.Decider{By: tokenHolder, Via: viaBearer}, authOK
			}
			return store.Decider{}, authFailed
		}
		u, pw, ok := r.BasicAuth()
		if ok && c.User != "" && subtle.ConstantTimeCompare([]byte(u), []byte(c.User))&subtle.ConstantTimeCompare([]byte(pw), []byte(c.Password)) == 1 {
			return store.Decider{By: c.User, Via: viaBasic}, authOK
		}
		return store.Decider{}, authFailed
	}
	if ck, err := r.Cookie(sessionCookie); err == nil && c.Token != "" {
		if p.sessions.valid(c, ck.Value) {
			return store.Decider{By: tokenHolder, Via: viaSession}, authOK
		}
		return store.Decider{}, authFailed
	}
	return store.Decider{}, authNone
}

// Authenticated reports who r authenticated as with the page's
// credentials (false for a page without authentication, or a request
// without them); a failed attempt counts as a failed login. /healthz
// shows its details to an authenticated request only.
func (p *Page) Authenticated(r *http.Request) (store.Decider, bool) {
	c := p.creds()
	if c.open() {
		return store.Decider{}, false
	}
	client := clientOf(r)
	if p.throttle.lockedOut(client) > 0 {
		return store.Decider{}, false
	}
	who, a := p.authenticate(r, c)
	p.counted(r, client, a, "request")
	return who, a == authOK
}

// counted counts and logs a failed login (and forgets the failures of a
// client that succeeded); how says where it was tried.
func (p *Page) counted(r *http.Request, client string, a auth, how string) {
	switch a {
	case authOK:
		p.throttle.succeeded(client)
	case authFailed:
		n, lock := p.throttle.failed(client)
		fields := []zap.Field{zap.String("client", client), zap.String("path", r.URL.Path), zap.String("how", how), zap.Int("failuresInARow", n)}
		if lock > 0 {
			fields = append(fields, zap.Duration("lockedOutFor", lock))
		}
		p.log.Warn("status page: failed login", fields...)
	}
}

// protect authenticates r for h: an open page answers only its own host
// names; a protected one lets through only the page's credentials,
// locking out a client address that fails too often. h finds who the
// request authenticated as with Who.
func (p *Page) protect(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		acc := p.Access()
		c := &acc.Credentials
		if c.open() {
			if !newHosts(acc.Listen, acc.AllowedHosts).allowed(r.Host) {
				misdirected(w)
				return
			}
			h.ServeHTTP(w, r)
			return
		}
		client := clientOf(r)
		if wait := p.throttle.lockedOut(client); wait > 0 {
			tooMany(w, wait)
			return
		}
		if r.URL.Path == "/login" {
			p.login(w, r, c, client)
			return
		}
		who, a := p.authenticate(r, c)
		p.counted(r, client, a, "request")
		if a != authOK {
			p.unauthorized(w, r, c, a == authFailed, "")
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), whoKey{}, who)))
	})
}

// tooMany answers a locked-out client.
func tooMany(w http.ResponseWriter, wait time.Duration) {
	wait = max(wait.Round(time.Second), time.Second)
	w.Header().Set("Retry-After", strconv.Itoa(int(wait/time.Second)))
	http.Error(w, "too many failed logins from this address: try again in "+wait.String(), http.StatusTooManyRequests)
}

// whoKey keys the authenticated identity in a request's context.
type whoKey struct{}

// Who is who r authenticated as on the page, and how; false when the
// page has no authentication.
func Who(r *http.Request) (store.Decider, bool) {
	who, ok := r.Context().Value(whoKey{}).(store.Decider)
	return who, ok
}

// bearer is the token of an "Authorization: Bearer <token>" header.
func bearer(h string) (string, bool) {
	const prefix = "bearer "
	if len(h) <= len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return "", false
	}
	return h[len(prefix):], true
}

// sessions signs and checks the session cookies of the token login: the
// end of the session, signed under a key of this process and the
// credentials' fingerprint (a rotated token ends every session).
type sessions struct {
	key []byte
	now func() time.Time
}

// cookie is a new session's value.
func (s *sessions) cookie(c *Credentials) string {
	var end [8]byte
	binary.BigEndian.PutUint64(end[:], uint64(s.now().Add(sessionFor).Unix()))
	return base64.RawURLEncoding.EncodeToString(append(end[:], s.sign(c, end[:])...))
}

// valid reports whether value is a session of c that has not ended.
func (s *sessions) valid(c *Credentials, value string) bool {
	b, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil || len(b) != 8+sha256.Size {
		return false
	}
	end := int64(binary.BigEndian.Uint64(b[:8]))
	return hmac.Equal(b[8:], s.sign(c, b[:8])) && s.now().Unix() < end
}

func (s *sessions) sign(c *Credentials, end []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("session\x00"))
	m.Write(c.fingerprint())
	m.Write(end)
	return m.Sum(nil)
}
