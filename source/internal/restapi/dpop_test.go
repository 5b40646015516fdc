package restapi

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TestDPoPTransport: with DPoPAuto, a token endpoint that asks for DPoP
// (invalid_dpop_proof) and then for a nonce gets three requests, the
// last with a proof and the nonce; the API is called with "DPoP <token>",
// a proof of the URL without its query and the token's hash, sent again
// with the API's nonce. The proofs' key verifies them, the dropped
// answers are counted, and each proof is new.
func TestDPoPTransport(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var proofs []jwt.MapClaims
	jtis := map[any]bool{}
	claims := func(r *http.Request) jwt.MapClaims {
		m := jwt.MapClaims{}
		_, err := jwt.ParseWithClaims(r.Header.Get("DPoP"), m, func(tok *jwt.Token) (any, error) {
			if tok.Header["typ"] != "dpop+jwt" {
				return nil, fmt.Errorf("typ %v", tok.Header["typ"])
			}
			jwk, _ := tok.Header["jwk"].(map[string]any)
			x, _ := base64.RawURLEncoding.DecodeString(jwk["x"].(string))
			y, _ := base64.RawURLEncoding.DecodeString(jwk["y"].(string))
			return ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
		}, jwt.WithValidMethods([]string{"ES256"}))
		if err != nil {
			t.Errorf("%s %s: proof %v", r.Method, r.URL, err)
		}
		mu.Lock()
		defer mu.Unlock()
		if jtis[m["jti"]] {
			t.Errorf("jti %v used twice", m["jti"])
		}
		jtis[m["jti"]] = true
		proofs = append(proofs, m)
		return m
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/token" && r.Header.Get("DPoP") == "":
			w.WriteHeader(400)
			fmt.Fprint(w, `{"error":"invalid_dpop_proof","error_description":"The DPoP proof JWT header is missing."}`)
		case r.URL.Path == "/token" && claims(r)["nonce"] != "as-nonce":
			w.Header().Set("DPoP-Nonce", "as-nonce")
			w.WriteHeader(400)
			fmt.Fprint(w, `{"error":"use_dpop_nonce"}`)
		case r.URL.Path == "/token":
			if r.ParseForm(); r.PostForm.Get("client_assertion") == "" {
				t.Error("the resent token request lost its body")
			}
			fmt.Fprint(w, `{"access_token":"at","token_type":"DPoP","expires_in":3600}`)
		case r.Header.Get("Authorization") != "DPoP at":
			w.WriteHeader(401)
		case claims(r)["nonce"] != "rs-nonce":
			w.Header().Set("DPoP-Nonce", "rs-nonce")
			w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce"`)
			w.WriteHeader(401)
		default:
			fmt.Fprint(w, `{"ok":true}`)
		}
	}))
	defer srv.Close()
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	c, err := New(context.Background(), Options{BaseURL: srv.URL, MinWait: time.Millisecond, MaxWait: time.Millisecond,
		Auth: PrivateKeyJWT{TokenURL: srv.URL + "/token", ClientID: "c", Key: key, DPoP: DPoPAuto}})
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		OK bool `json:"ok"`
	}
	for range 2 {
		if err := c.GetJSON(context.Background(), "/api/items?limit=2", nil, &v); err != nil || !v.OK {
			t.Fatalf("GET: %v %v", err, v)
		}
	}
	sum := sha256.Sum256([]byte("at"))
	want := []jwt.MapClaims{
		{"htm": "POST", "htu": srv.URL + "/token"},
		{"htm": "POST", "htu": srv.URL + "/token", "nonce": "as-nonce"},
		{"htm": "GET", "htu": srv.URL + "/api/items", "ath": base64.RawURLEncoding.EncodeToString(sum[:])},
		{"htm": "GET", "htu": srv.URL + "/api/items", "nonce": "rs-nonce"},
		{"htm": "GET", "htu": srv.URL + "/api/items", "nonce": "rs-nonce"},
	}
	if len(proofs) != len(want) {
		t.Fatalf("%d proofs, want %d", len(proofs), len(want))
	}
	for i, w := range want {
		for k, v := range w {
			if proofs[i][k] != v {
				t.Errorf("proof %d: %s = %v, want %v", i, k, proofs[i][k], v)
			}
		}
		if iat, _ := proofs[i]["iat"].(float64); time.Since(time.Unix(int64(iat), 0)) > time.Minute {
			t.Errorf("proof %d: iat %v", i, proofs[i]["iat"])
		}
	}
	if st := c.Stats(); st.Requests != 6 {
		t.Errorf("%d requests counted, want 6 (3 token requests, 3 API requests)", st.Requests)
	}
}
