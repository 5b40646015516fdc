package umapi

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/hashicorp/go-retryablehttp"
	"github.com/youmark/pkcs8"

	"github.com/orgsync/orgsync/target/umwire"
)

// token is a cached access token.
type token struct {
	value   string
	refresh time.Time // when to fetch a new one (expiry minus margin)
}

// tokenSource fetches access tokens and caches them. One fetch runs at a
// time (sem); callers that wait for it get its result.
type tokenSource struct {
	sem    chan struct{} // holds the right to read/replace cur
	cur    token
	fetch  func(ctx context.Context) (value string, lifetime time.Duration, err error)
	clock  func() time.Time
	margin time.Duration
}

// newTokenSource caches the tokens fetch returns, refreshing each margin
// (at most a tenth of its lifetime) before it expires.
func newTokenSource(fetch func(context.Context) (string, time.Duration, error), clock func() time.Time, margin time.Duration) *tokenSource {
	return &tokenSource{sem: make(chan struct{}, 1), fetch: fetch, clock: clock, margin: margin}
}

// Token returns a valid token, fetching one when none is cached or the
// cached one is within its refresh margin.
func (t *tokenSource) Token(ctx context.Context) (string, error) {
	select {
	case t.sem <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-t.sem }()
	if t.cur.value != "" && t.clock().Before(t.cur.refresh) {
		return t.cur.value, nil
	}
	v, life, err := t.fetch(ctx)
	if err != nil {
		return "", err
	}
	margin := min(t.margin, life/10)
	t.cur = token{value: v, refresh: t.clock().Add(life - margin)}
	return v, nil
}

// Invalidate drops the cached token if it is still old (the one a 401 was
// answered to), so that the next Token call fetches a new one; a token
// already replaced by another caller is kept.
func (t *tokenSource) Invalidate(ctx context.Context, old string) {
	select {
	case t.sem <- struct{}{}:
	case <-ctx.Done():
		return
	}
	defer func() { <-t.sem }()
	if t.cur.value == old {
		t.cur = token{}
	}
}

// authenticator fetches tokens from the authorization server (contract 1).
type authenticator struct {
	cfg   Config
	key   *rsa.PrivateKey // AuthJWT only
	http  *retryablehttp.Client
	clock func() time.Time
}

// fetch asks the authorization server for a token. An answer lost in the
// middle of its body is asked for again (see Client.getJSON).
func (a *authenticator) fetch(ctx context.Context) (string, time.Duration, error) {
	for n := 0; ; n++ {
		v, life, err := a.fetchOnce(ctx)
		var lost *answerLost
		if !errors.As(err, &lost) || n >= a.cfg.MaxRetries {
			return v, life, err
		}
		if err := sleep(ctx, backoff(a.cfg.RetryWaitMin, a.cfg.RetryWaitMax, n, nil)); err != nil {
			return "", 0, err
		}
	}
}

// answerLost is a 2xx answer whose body could not be read whole.
type answerLost struct{ err error }

func (e *answerLost) Error() string { return e.err.Error() }
func (e *answerLost) Unwrap() error { return e.err }

// fetchOnce sends one token request (retried by the retry policy).
func (a *authenticator) fetchOnce(ctx context.Context) (string, time.Duration, error) {
	form, path, err := a.form()
	if err != nil {
		return "", 0, err
	}
	u := a.cfg.AuthBaseURL + path
	ci := newCallInfo(EndpointToken, limitNone, u)
	req, err := retryablehttp.NewRequestWithContext(withCall(ctx, ci), http.MethodPost, u, []byte(form.Encode()))
	if err != nil {
		return "", 0, fmt.Errorf("sign-in: building the request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := a.http.Do(req)
	var ue *UnreachableError
	switch {
	case errors.As(err, &ue):
		return "", 0, err
	case err != nil:
		return "", 0, fmt.Errorf("sign-in: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		ae := newAPIError(EndpointToken, resp)
		if unlikeTokenEndpoint(ae) {
			return "", 0, &UnreachableError{Endpoint: EndpointToken, URL: ci.origin, Attempts: 1, Reason: ReasonNotService, Err: ae}
		}
		return "", 0, ae
	}
	defer resp.Body.Close()
	var tr struct {
		umwire.TokenResponse
		ExpiresIn json.RawMessage `json:"expires_in"` // see tokenLifetime
	}
	err = json.NewDecoder(resp.Body).Decode(&tr)
	if err != nil && lostMidway(err) {
		return "", 0, &answerLost{fmt.Errorf("sign-in: decoding the answer: %w", err)}
	}
	life, ok := tokenLifetime(tr.ExpiresIn)
	if err != nil || tr.AccessToken == "" || !ok {
		return "", 0, &UnreachableError{Endpoint: EndpointToken, URL: ci.origin, Attempts: 1, Reason: ReasonNotService,
			Err: errors.New("HTTP 200 without an access_token and a positive expires_in")}
	}
	return tr.AccessToken, life, nil
}

// maxTokenLifetime bounds the lifetime a token answer may claim, so that
// it fits a time.Duration; a token that lives longer is fetched again
// after a year, or after a 401.
const maxTokenLifetime = 365 * 24 * time.Hour

// tokenLifetime reads expires_in (seconds): a JSON number, possibly with a
// fraction, or a string holding one, as authorization servers send it.
func tokenLifetime(raw json.RawMessage) (time.Duration, bool) {
	v := strings.Trim(strings.TrimSpace(string(raw)), `"`)
	secs, err := strconv.ParseFloat(v, 64)
	if err != nil || !(secs > 0) {
		return 0, false
	}
	return time.Duration(min(secs, maxTokenLifetime.Seconds()) * float64(time.Second)), true
}

// unlikeTokenEndpoint reports whether a refusal of a token request is not
// one a token endpoint gives: the service's token endpoints name an error
// (contract 1) in every refusal, a web server that is not the service
// answers 404, 405 or 501 or a refusal without one (the service's API
// answers 401 with an empty body, as it does to a token request sent below
// its API path).
func unlikeTokenEndpoint(ae *APIError) bool {
	switch {
	case ae.StatusCode == http.StatusNotImplemented:
		return true
	case ae.StatusCode == http.StatusTooManyRequests || ae.StatusCode >= 500:
		return false
	}
	return ae.Code == ""
}

// form returns the token request's fields and path for the configured method.
func (a *authenticator) form() (url.Values, string, error) {
	form := url.Values{umwire.FormClientID: {a.cfg.ClientID}, umwire.FormClientSecret: {a.cfg.ClientSecret}}
	if a.cfg.AuthMethod == AuthOAuth {
		form.Set(umwire.FormGrantType, umwire.GrantClientCredentials)
		form.Set(umwire.FormScope, a.cfg.Scope)
		return form, umwire.PathClientCredentials, nil
	}
	signed, err := a.signJWT()
	if err != nil {
		return nil, "", err
	}
	form.Set(umwire.FormJWTToken, signed)
	return form, umwire.PathJWTExchange, nil
}

// signJWT builds the RS256 JWT of the exchange (contract 1).
func (a *authenticator) signJWT() (string, error) {
	base := a.cfg.AuthBaseURL
	claims := jwt.MapClaims{
		"iss": a.cfg.OrgID,
		"sub": a.cfg.TechAccountID,
		"aud": base + umwire.JWTAudiencePath + a.cfg.ClientID,
		"exp": a.clock().Add(DefaultJWTLifetime).Unix(),
		base + umwire.JWTScopePath + umwire.ClaimEntUserSDK: true,
	}
	s, err := jwt.NewWithClaims(jwt.SigningMethodRS256, claims).SignedString(a.key)
	if err != nil {
		return "", fmt.Errorf("signing the sign-in JWT: %w", err)
	}
	return s, nil
}

// parsePrivateKey reads an RSA private key in PEM: PKCS#1, PKCS#8, or
// PKCS#8 encrypted with passphrase (PBES2, as `openssl pkcs8 -topk8`
// writes it; the standard library cannot decrypt it, so
// github.com/youmark/pkcs8 does), or either in the legacy encrypted form
// (decryptLegacyPEM). Its errors never quote the key or the passphrase.
func parsePrivateKey(pemText, passphrase string) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode([]byte(strings.TrimSpace(oneNewline(pemText))))
	switch {
	case block == nil:
		return nil, errors.New("not PEM (expected -----BEGIN RSA PRIVATE KEY-----, -----BEGIN PRIVATE KEY----- or -----BEGIN ENCRYPTED PRIVATE KEY-----)")
	case block.Type == "CERTIFICATE":
		return nil, errors.New("this is a certificate (the public half, which the service's integration holds), not a private key: give the private key that goes with it (-----BEGIN PRIVATE KEY----- or -----BEGIN RSA PRIVATE KEY-----)")
	case block.Type == "ENCRYPTED PRIVATE KEY":
		return decryptPrivateKey(block.Bytes, passphrase)
	case block.Headers["Proc-Type"] == "4,ENCRYPTED":
		return decryptLegacyPEM(block, passphrase)
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("PEM block %q is neither a PKCS#1 nor a PKCS#8 private key", block.Type)
	}
	return rsaKey(k)
}

// decryptPrivateKey decrypts an encrypted PKCS#8 RSA key.
func decryptPrivateKey(der []byte, passphrase string) (*rsa.PrivateKey, error) {
	if passphrase == "" {
		return nil, errors.New("the key is encrypted (ENCRYPTED PRIVATE KEY): set privateKeyPassphrase to where its passphrase is (env or file)")
	}
	k, _, err := pkcs8.ParsePrivateKey(der, []byte(passphrase))
	if err != nil {
		return nil, fmt.Errorf("cannot decrypt the encrypted PKCS#8 key with privateKeyPassphrase (a wrong passphrase, or a scheme other than PBES2 with PBKDF2 or scrypt and AES or 3DES): %w", err)
	}
	return rsaKey(k)
}

// rsaKey returns k when it is an RSA key, which RS256 needs.
func rsaKey(k any) (*rsa.PrivateKey, error) {
	rk, ok := k.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("a %T key, RS256 needs an RSA key", k)
	}
	return rk, nil
}
