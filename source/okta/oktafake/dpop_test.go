package oktafake_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/orgsync/orgsync/source/okta/oktafake"
)

// client signs DPoP proofs with its key, as RFC 9449 says.
type client struct {
	key *ecdsa.PrivateKey
	jwk map[string]string
}

func newClient(t *testing.T) client {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := key.PublicKey.ECDH()
	xy := pub.Bytes()[1:]
	b64 := base64.RawURLEncoding.EncodeToString
	return client{key: key, jwk: map[string]string{"kty": "EC", "crv": "P-256", "x": b64(xy[:32]), "y": b64(xy[32:])}}
}

// proof returns a proof for method and u; edit changes its claims
// before it is signed with signer (c's key when nil).
func (c client) proof(t *testing.T, method, u, nonce, token string, signer *ecdsa.PrivateKey, edit func(jwt.MapClaims)) string {
	t.Helper()
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	claims := jwt.MapClaims{"htm": method, "htu": u, "iat": time.Now().Unix(), "jti": base64.RawURLEncoding.EncodeToString(b)}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if edit != nil {
		edit(claims)
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, claims)
	tok.Header["typ"], tok.Header["jwk"] = "dpop+jwt", c.jwk
	if signer == nil {
		signer = c.key
	}
	s, err := tok.SignedString(signer)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func do(t *testing.T, method, u, auth, proof string, form url.Values) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(method, u, strings.NewReader(form.Encode()))
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if proof != "" {
		req.Header.Set("DPoP", proof)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// signIn gets a DPoP access token for c from s's app 0oa-dpop (private
// key appKey) through the nonce round trip.
func signIn(t *testing.T, s *oktafake.Server, appKey *rsa.PrivateKey, c client) string {
	t.Helper()
	tokenURL := s.URL + "/oauth2/v1/token"
	form := func() url.Values {
		a := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.RegisteredClaims{Issuer: "0oa-dpop", Subject: "0oa-dpop", Audience: jwt.ClaimStrings{tokenURL},
			ID: time.Now().String(), ExpiresAt: jwt.NewNumericDate(time.Now().Add(time.Minute))})
		signed, _ := a.SignedString(appKey)
		return url.Values{"grant_type": {"client_credentials"}, "scope": {"okta.users.read okta.groups.read"},
			"client_id": {"0oa-dpop"}, "client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"}, "client_assertion": {signed}}
	}
	resp := do(t, "POST", tokenURL, "", c.proof(t, "POST", tokenURL, "", "", nil, nil), form())
	nonce := resp.Header.Get("DPoP-Nonce")
	if resp.StatusCode != http.StatusBadRequest || nonce == "" {
		t.Fatalf("token request without nonce: %s, nonce %q; want 400 use_dpop_nonce with a nonce", resp.Status, nonce)
	}
	resp = do(t, "POST", tokenURL, "", c.proof(t, "POST", tokenURL, nonce, "", nil, nil), form())
	var tok struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || resp.StatusCode != http.StatusOK || tok.TokenType != "DPoP" {
		t.Fatalf("token request with nonce: %s %v, type %q", resp.Status, err, tok.TokenType)
	}
	return tok.AccessToken
}

// TestDPoPProofsChecked: the fake takes a DPoP token only with a fresh,
// well-formed proof of the key it is bound to, and refuses it as Bearer.
func TestDPoPProofsChecked(t *testing.T) {
	t.Parallel()
	appKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	org := oktafake.Demo()
	org.Apps = []oktafake.App{{ClientID: "0oa-dpop", Key: &appKey.PublicKey, Scopes: []string{"okta.users.read", "okta.groups.read"}, RequireDPoP: true}}
	s := oktafake.Start(org, oktafake.Options{})
	defer s.Close()
	c, other := newClient(t), newClient(t)
	tok := signIn(t, s, appKey, c)
	users := s.URL + "/api/v1/users"
	if resp := do(t, "GET", users+"?limit=2", "DPoP "+tok, c.proof(t, "GET", users, "", tok, nil, nil), nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("a good proof: %s", resp.Status)
	}
	replayed := c.proof(t, "GET", users, "", tok, nil, nil)
	if resp := do(t, "GET", users, "DPoP "+tok, replayed, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("a proof's first use: %s", resp.Status)
	}
	otherTok := signIn(t, s, appKey, other)
	for name, req := range map[string]struct{ auth, proof string }{
		"replayed proof":         {"DPoP " + tok, replayed},
		"no proof":               {"DPoP " + tok, ""},
		"as Bearer":              {"Bearer " + tok, ""},
		"as Bearer with a proof": {"Bearer " + tok, c.proof(t, "GET", users, "", tok, nil, nil)},
		"forged signature":       {"DPoP " + tok, c.proof(t, "GET", users, "", tok, other.key, nil)},
		"another key's proof":    {"DPoP " + tok, other.proof(t, "GET", users, "", tok, nil, nil)},
		"other URL":              {"DPoP " + tok, c.proof(t, "GET", s.URL+"/api/v1/groups", "", tok, nil, nil)},
		"other method":           {"DPoP " + tok, c.proof(t, "POST", users, "", tok, nil, nil)},
		"ath of another token":   {"DPoP " + tok, c.proof(t, "GET", users, "", "other-token", nil, nil)},
		"old iat":                {"DPoP " + tok, c.proof(t, "GET", users, "", tok, nil, func(m jwt.MapClaims) { m["iat"] = time.Now().Add(-time.Hour).Unix() })},
		"no jti":                 {"DPoP " + tok, c.proof(t, "GET", users, "", tok, nil, func(m jwt.MapClaims) { delete(m, "jti") })},
		"a token of another key": {"DPoP " + otherTok, c.proof(t, "GET", users, "", otherTok, nil, nil)},
	} {
		resp := do(t, "GET", users, req.auth, req.proof, nil)
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: %s, want 401", name, resp.Status)
		}
	}
	if d := s.DPoPStats(); d.Refused < 10 {
		t.Errorf("DPoP stats %+v: want the bad proofs counted as refused", d)
	}
}

// TestDPoPTokenEndpoint: a token request of an app that requires DPoP
// without a proof, or with a bad one, is refused invalid_dpop_proof.
func TestDPoPTokenEndpoint(t *testing.T) {
	t.Parallel()
	appKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	org := oktafake.Demo()
	org.Apps = []oktafake.App{{ClientID: "0oa-dpop", Key: &appKey.PublicKey, RequireDPoP: true}}
	s := oktafake.Start(org, oktafake.Options{})
	defer s.Close()
	c := newClient(t)
	tokenURL := s.URL + "/oauth2/v1/token"
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {"0oa-dpop"}}
	for name, proof := range map[string]string{
		"no proof":     "",
		"wrong htu":    c.proof(t, "POST", s.URL+"/oauth2/default/v1/token", "", "", nil, nil),
		"wrong method": c.proof(t, "GET", tokenURL, "", "", nil, nil),
	} {
		resp := do(t, "POST", tokenURL, "", proof, form)
		var e struct{ Error string }
		_ = json.NewDecoder(resp.Body).Decode(&e)
		if resp.StatusCode != http.StatusBadRequest || e.Error != "invalid_dpop_proof" {
			t.Errorf("%s: %s %q, want 400 invalid_dpop_proof", name, resp.Status, e.Error)
		}
	}
}
