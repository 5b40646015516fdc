package gate

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/orgsync/orgsync/target/umwire"
)

func TestJWTExchange(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	other := testKeys()[1]
	tests := []struct {
		name   string
		edit   func(form url.Values, c jwt.MapClaims) // c is signed after edit
		key    bool                                   // sign with the other integration's key
		status int
		errMsg string // substring of error_description
	}{
		{name: "valid", status: 200},
		{name: "bad signature", key: true, status: 400, errMsg: "signature does not verify"},
		{name: "wrong aud", edit: func(_ url.Values, c jwt.MapClaims) { c["aud"] = e.srv.URL + "/c/someone" },
			status: 400, errMsg: "aud must be " + e.srv.URL + "/c/" + e.in.ClientID},
		{name: "wrong iss", edit: func(_ url.Values, c jwt.MapClaims) { c["iss"] = otherOrg },
			status: 400, errMsg: "iss must be"},
		{name: "wrong sub", edit: func(_ url.Values, c jwt.MapClaims) { c["sub"] = "x@techacct.VendorOrg" },
			status: 400, errMsg: "sub must be"},
		{name: "expired", edit: func(_ url.Values, c jwt.MapClaims) { c["exp"] = e.clock.Now().Add(-time.Second).Unix() },
			status: 400, errMsg: "exp lies in the past"},
		{name: "exp too far", edit: func(_ url.Values, c jwt.MapClaims) { c["exp"] = e.clock.Now().Add(25 * time.Hour).Unix() },
			status: 400, errMsg: "at most 24 h ahead"},
		{name: "exp missing", edit: func(_ url.Values, c jwt.MapClaims) { delete(c, "exp") },
			status: 400, errMsg: "exp claim is missing"},
		{name: "meta-scope missing", edit: func(_ url.Values, c jwt.MapClaims) { delete(c, e.srv.URL+"/s/ent_user_sdk") },
			status: 400, errMsg: "ent_user_sdk\" must be true"},
		{name: "meta-scope false", edit: func(_ url.Values, c jwt.MapClaims) { c[e.srv.URL+"/s/ent_user_sdk"] = false },
			status: 400, errMsg: "must be true"},
		{name: "unknown client", edit: func(f url.Values, _ jwt.MapClaims) { f.Set(umwire.FormClientID, "nobody") },
			status: 400, errMsg: "unknown client_id"},
		{name: "wrong secret", edit: func(f url.Values, _ jwt.MapClaims) { f.Set(umwire.FormClientSecret, "guess") },
			status: 400, errMsg: "client_secret does not match"},
		{name: "jwt missing", edit: func(f url.Values, _ jwt.MapClaims) { f.Del(umwire.FormJWTToken) },
			status: 400, errMsg: "jwt_token is missing"},
		{name: "jwt malformed", edit: func(f url.Values, _ jwt.MapClaims) { f.Set(umwire.FormJWTToken, "not.a.jwt") },
			status: 400, errMsg: "not a well-formed JWT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			claims := e.assertionClaims()
			form := url.Values{umwire.FormClientID: {e.in.ClientID}, umwire.FormClientSecret: {e.in.ClientSecret}}
			key := e.key
			if tt.key {
				key = other.key
			}
			form.Set(umwire.FormJWTToken, "placeholder")
			if tt.edit != nil {
				tt.edit(form, claims)
			}
			if form.Get(umwire.FormJWTToken) == "placeholder" {
				form.Set(umwire.FormJWTToken, sign(t, key, claims))
			}
			resp := e.postForm(umwire.PathJWTExchange, form)
			checkTokenAnswer(t, e, resp, tt.status, tt.errMsg)
		})
	}
}

// checkTokenAnswer checks a token endpoint's answer: a usable token on 200,
// an invalid_client-style error without secrets otherwise.
func checkTokenAnswer(t *testing.T, e *env, resp response, status int, errMsg string) {
	t.Helper()
	if resp.status != status {
		t.Fatalf("status %d, want %d; body %s", resp.status, status, resp.body)
	}
	if strings.Contains(resp.body, e.in.ClientSecret) {
		t.Errorf("answer echoes the client secret: %s", resp.body)
	}
	if status != http.StatusOK {
		var te umwire.TokenError
		if err := json.Unmarshal([]byte(resp.body), &te); err != nil || te.Error == "" {
			t.Fatalf("error body %q: %v", resp.body, err)
		}
		if !strings.Contains(te.ErrorDescription, errMsg) {
			t.Errorf("error_description %q, want it to contain %q", te.ErrorDescription, errMsg)
		}
		return
	}
	var tr umwire.TokenResponse
	if err := json.Unmarshal([]byte(resp.body), &tr); err != nil {
		t.Fatalf("body %q: %v", resp.body, err)
	}
	if tr.TokenType != "bearer" || !strings.HasPrefix(tr.AccessToken, "ey") || tr.ExpiresIn != 86400 {
		t.Errorf("token response %+v: want bearer, ey…, 86400", tr)
	}
	if got := e.get(usersPath, tr.AccessToken); got.status != http.StatusOK {
		t.Errorf("API request with the new token: %d, want 200", got.status)
	}
}

func TestClientCredentials(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	valid := func() url.Values {
		return url.Values{umwire.FormGrantType: {umwire.GrantClientCredentials}, umwire.FormClientID: {e.in.ClientID},
			umwire.FormClientSecret: {e.in.ClientSecret}, umwire.FormScope: {"openid"}}
	}
	tests := []struct {
		name   string
		edit   func(url.Values)
		status int
		errMsg string
	}{
		{name: "valid", edit: func(url.Values) {}, status: 200},
		{name: "no scope", edit: func(f url.Values) { f.Del(umwire.FormScope) }, status: 200},
		{name: "wrong grant", edit: func(f url.Values) { f.Set(umwire.FormGrantType, "password") },
			status: 400, errMsg: "grant_type must be client_credentials"},
		{name: "wrong secret", edit: func(f url.Values) { f.Set(umwire.FormClientSecret, "x") },
			status: 400, errMsg: "client_secret does not match"},
		{name: "no client", edit: func(f url.Values) { f.Del(umwire.FormClientID) },
			status: 400, errMsg: "client_id is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			form := valid()
			tt.edit(form)
			checkTokenAnswer(t, e, e.postForm(umwire.PathClientCredentials, form), tt.status, tt.errMsg)
		})
	}
	t.Run("GET is refused", func(t *testing.T) {
		resp := e.do(e.apiRequest(http.MethodGet, umwire.PathClientCredentials, "", ""))
		if resp.status != http.StatusMethodNotAllowed || resp.header.Get("Allow") != http.MethodPost {
			t.Errorf("GET: %d Allow=%q, want 405 Allow=POST", resp.status, resp.header.Get("Allow"))
		}
	})
	if n := e.gate.Stats().Count(EndpointToken, http.StatusBadRequest); n != 3 {
		t.Errorf("stats: %d token 400s, want 3", n)
	}
}

func TestTokenExpiry(t *testing.T) {
	t.Parallel()
	for _, lifetime := range []time.Duration{time.Hour, 500 * time.Millisecond} {
		t.Run(lifetime.String(), func(t *testing.T) {
			e := newEnv(t, func(c *Config) { c.TokenLifetime = lifetime })
			tok := e.token(e.in)
			e.clock.Advance(lifetime - time.Millisecond)
			if got := e.get(usersPath, tok); got.status != http.StatusOK {
				t.Fatalf("just before expiry: %d, want 200", got.status)
			}
			e.clock.Advance(time.Millisecond)
			got := e.get(usersPath, tok)
			if got.status != http.StatusUnauthorized || got.header.Get("WWW-Authenticate") != umwire.WWWAuthenticateInvalid {
				t.Fatalf("at expiry: %d %q, want 401 with WWW-Authenticate", got.status, got.header.Get("WWW-Authenticate"))
			}
			if got := e.get(usersPath, e.token(e.in)); got.status != http.StatusOK {
				t.Errorf("fresh token: %d, want 200", got.status)
			}
		})
	}
}

// Both token endpoints also answer with a trailing slash, as the vendor's
// Python client posts to "/ims/exchange/jwt/"; other paths stay outside.
func TestTokenEndpointsTrailingSlash(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	form := url.Values{umwire.FormClientID: {e.in.ClientID}, umwire.FormClientSecret: {e.in.ClientSecret}}
	form.Set(umwire.FormJWTToken, sign(t, e.key, e.assertionClaims()))
	checkTokenAnswer(t, e, e.postForm(umwire.PathJWTExchange+"/", form), http.StatusOK, "")
	cc := url.Values{umwire.FormGrantType: {umwire.GrantClientCredentials}, umwire.FormClientID: {e.in.ClientID},
		umwire.FormClientSecret: {e.in.ClientSecret}}
	checkTokenAnswer(t, e, e.postForm(umwire.PathClientCredentials+"/", cc), http.StatusOK, "")
	for _, p := range []string{umwire.PathClientCredentials + "//", umwire.PathJWTExchange + "x", "/ims/token/"} {
		if tokenPath(p) != "" {
			t.Errorf("%s is taken for a token endpoint", p)
		}
	}
}
