// Package fakeapi is what the fake cloud directory servers (entrafake,
// oktafake) share: a gate that throttles every Nth request and injects
// faults by request number, counting both; access tokens with a lifetime;
// the check of a signed client assertion (RFC 7523 private_key_jwt); and
// offset paging with next-page URLs.
package fakeapi

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Gate answers some API requests itself: every ThrottleEvery-th with
// Throttle's answer, and request n with Faults[n] (a status code, or 0
// to drop the connection).
type Gate struct {
	ThrottleEvery int
	Faults        map[int]int
	// Throttle writes the API's throttled answer (429 and its headers).
	Throttle func(w http.ResponseWriter)
	// Error writes the API's error answer for a status.
	Error func(w http.ResponseWriter, status int)

	requests, throttled, faults atomic.Int64
}

// Stats are the counts of a gate.
type Stats struct {
	Requests  int64 // every request the gate saw
	Throttled int64 // answered by Throttle
	Faults    int64 // answered by Faults
}

// Stats returns the counts so far.
func (g *Gate) Stats() Stats {
	return Stats{Requests: g.requests.Load(), Throttled: g.throttled.Load(), Faults: g.faults.Load()}
}

// Wrap returns h behind the gate.
func (g *Gate) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(g.requests.Add(1))
		if status, ok := g.Faults[n]; ok {
			g.faults.Add(1)
			if status == 0 {
				drop(w)
				return
			}
			g.Error(w, status)
			return
		}
		if g.ThrottleEvery > 0 && n%g.ThrottleEvery == 0 {
			g.Reject(w)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Reject answers with Throttle's answer and counts it: for a handler
// that enforces a rate limit of its own.
func (g *Gate) Reject(w http.ResponseWriter) {
	g.Rejected()
	g.Throttle(w)
}

// Rejected counts a request that a handler answered as throttled itself.
func (g *Gate) Rejected() { g.throttled.Add(1) }

// drop closes the connection without an answer.
func drop(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		conn.Close()
	}
}

// Tokens are the access tokens a fake has issued, each with what it
// grants (application permissions, scopes).
type Tokens struct {
	Lifetime time.Duration // default one hour
	mu       sync.Mutex
	issued   map[string]issued
}

type issued struct {
	expiry time.Time
	grants []string
}

// Issue returns a new token granting grants and its lifetime in seconds.
func (t *Tokens) Issue(grants ...string) (string, int) {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	tok := hex.EncodeToString(b)
	life := t.Lifetime
	if life == 0 {
		life = time.Hour
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.issued == nil {
		t.issued = map[string]issued{}
	}
	t.issued[tok] = issued{expiry: time.Now().Add(life), grants: grants}
	return tok, int(life / time.Second)
}

// Grants returns what the token of r grants, and whether it is valid:
// the Authorization header of r is "<scheme> <a token issued and not
// expired>".
func (t *Tokens) Grants(r *http.Request, scheme string) ([]string, bool) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), scheme+" ")
	if !ok {
		return nil, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	is, ok := t.issued[tok]
	if !ok || !time.Now().Before(is.expiry) {
		return nil, false
	}
	return is.grants, true
}

// CheckAssertion verifies a client assertion: RS256 signed by key, issuer
// and subject clientID, audience the token endpoint aud, not expired,
// with a jti, which it returns.
func CheckAssertion(assertion, clientID, aud string, key *rsa.PublicKey) (jti string, err error) {
	var claims jwt.RegisteredClaims
	_, err = jwt.ParseWithClaims(assertion, &claims, func(*jwt.Token) (any, error) { return key, nil },
		jwt.WithValidMethods([]string{"RS256"}), jwt.WithAudience(aud), jwt.WithIssuer(clientID), jwt.WithSubject(clientID), jwt.WithExpirationRequired())
	if err != nil {
		return "", err
	}
	if claims.ID == "" {
		return "", errors.New("the assertion has no jti")
	}
	return claims.ID, nil
}

// Page returns the window [start, end) of a list of n items that request
// r asks for, by its offset parameter param, at most size items; next is
// the URL of the page after it ("" at the end), on r's host.
func Page(r *http.Request, param string, n, size int) (start, end int, next string, err error) {
	if v := r.URL.Query().Get(param); v != "" {
		if start, err = strconv.Atoi(v); err != nil || start < 0 || start > n {
			return 0, 0, "", fmt.Errorf("bad %s %q", param, v)
		}
	}
	end = min(start+size, n)
	if end < n {
		q := r.URL.Query()
		q.Set(param, strconv.Itoa(end))
		u := url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path, RawQuery: q.Encode()}
		if r.TLS != nil {
			u.Scheme = "https"
		}
		next = u.String()
	}
	return start, end, next, nil
}

// Size returns the page size of parameter param of r: def when absent,
// an error when not in [1, max].
func Size(r *http.Request, param string, def, max int) (int, error) {
	v := r.URL.Query().Get(param)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > max {
		return 0, fmt.Errorf("%s must be between 1 and %d", param, max)
	}
	return n, nil
}

// WriteJSON writes v as the JSON answer with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// OAuthError writes an OAuth 2.0 token endpoint's error answer (RFC 6749
// section 5.2).
func OAuthError(w http.ResponseWriter, status int, code, desc string) {
	WriteJSON(w, status, map[string]string{"error": code, "error_description": desc})
}
