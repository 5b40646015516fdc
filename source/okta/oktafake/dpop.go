package oktafake

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// DPoPStats count what the fake's DPoP checks saw.
type DPoPStats struct {
	Proofs          int // proofs accepted (token endpoint and API)
	TokenChallenges int // token requests answered use_dpop_nonce
	APIChallenges   int // API requests answered use_dpop_nonce
	Refused         int // proofs refused (bad, replayed, unbound)
}

// dpop holds what checking DPoP proofs needs: the jti seen, the
// nonces given out and the key each DPoP access token is bound to.
type dpop struct {
	mu         sync.Mutex
	seen       map[string]bool   // jti of accepted proofs
	bound      map[string]string // access token -> thumbprint (cnf.jkt)
	tokenNonce string
	// the API's nonce, the one before it (still accepted) and the
	// requests since it was given out
	apiNonce, apiPrev string
	apiUses           int
	stats             DPoPStats
}

// maxProofAge is how far a proof's iat may be from now.
const maxProofAge = time.Minute

// proof is a verified proof's key thumbprint and nonce.
type proof struct{ jkt, nonce string }

// check verifies the one DPoP header of r as Okta does: typ dpop+jwt,
// ES256 or RS256 signed by its public jwk, htm and htu those of r, iat
// fresh, jti never seen, and ath the hash of the access token (API
// requests; "" at the token endpoint).
func (d *dpop) check(r *http.Request, access string) (proof, error) {
	hs := r.Header.Values("DPoP")
	if len(hs) != 1 {
		return proof{}, errors.New("The DPoP proof JWT header is missing or repeated.")
	}
	var jkt string
	claims := jwt.MapClaims{}
	_, err := jwt.ParseWithClaims(hs[0], claims, func(t *jwt.Token) (any, error) {
		if t.Header["typ"] != "dpop+jwt" {
			return nil, errors.New("typ is not dpop+jwt")
		}
		key, thumb, err := publicJWK(t.Header["jwk"])
		jkt = thumb
		return key, err
	}, jwt.WithValidMethods([]string{"ES256", "RS256"}))
	if err != nil {
		return proof{}, fmt.Errorf("The DPoP proof JWT is invalid: %v", err)
	}
	str := func(k string) string { s, _ := claims[k].(string); return s }
	iat, _ := claims["iat"].(float64)
	sum := sha256.Sum256([]byte(access))
	switch age := time.Since(time.Unix(int64(iat), 0)); {
	case str("htm") != r.Method:
		return proof{}, errors.New("The DPoP proof htm does not match the request method.")
	case str("htu") != "http://"+r.Host+r.URL.Path:
		return proof{}, errors.New("The DPoP proof htu does not match the request URL.")
	case age > maxProofAge || age < -maxProofAge:
		return proof{}, errors.New("The DPoP proof iat is too old or in the future.")
	case str("jti") == "":
		return proof{}, errors.New("The DPoP proof has no jti.")
	case access != "" && str("ath") != base64.RawURLEncoding.EncodeToString(sum[:]):
		return proof{}, errors.New("The DPoP proof ath does not match the access token.")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.seen[str("jti")] {
		return proof{}, errors.New("The DPoP proof jti has been used before.")
	}
	if d.seen == nil {
		d.seen = map[string]bool{}
	}
	d.seen[str("jti")] = true
	return proof{jkt: jkt, nonce: str("nonce")}, nil
}

// publicJWK returns the public key of a jwk header and its RFC 7638
// thumbprint; a private key (d) is refused.
func publicJWK(v any) (crypto.PublicKey, string, error) {
	m, _ := v.(map[string]any)
	s := func(k string) string { x, _ := m[k].(string); return x }
	b := func(k string) []byte { x, _ := base64.RawURLEncoding.DecodeString(s(k)); return x }
	var key crypto.PublicKey
	var members map[string]string
	switch {
	case m == nil || m["d"] != nil:
		return nil, "", errors.New("jwk is not a public key")
	case s("kty") == "EC" && s("crv") == "P-256":
		pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, b("x")...), b("y")...))
		if err != nil {
			return nil, "", err
		}
		key, members = pub, map[string]string{"crv": "P-256", "kty": "EC", "x": s("x"), "y": s("y")}
	case s("kty") == "RSA" && len(b("n")) >= 256 && len(b("e")) > 0:
		key = &rsa.PublicKey{N: new(big.Int).SetBytes(b("n")), E: int(new(big.Int).SetBytes(b("e")).Int64())}
		members = map[string]string{"e": s("e"), "kty": "RSA", "n": s("n")}
	default:
		return nil, "", errors.New("jwk is not an EC P-256 or RSA (2048 bits or more) key")
	}
	j, _ := json.Marshal(members) // keys sorted, no spaces: RFC 7638's form
	sum := sha256.Sum256(j)
	return key, base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

func newNonce() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// tokenNonceOK reports whether a proof to the token endpoint carries the
// endpoint's nonce; when not, it returns the nonce to ask for.
func (d *dpop) tokenNonceOK(p proof) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.tokenNonce == "" {
		d.tokenNonce = newNonce()
	}
	if p.nonce != d.tokenNonce {
		d.stats.TokenChallenges++
		return d.tokenNonce, false
	}
	d.stats.Proofs++
	return "", true
}

// bind binds an access token to a proof's key.
func (d *dpop) bind(token, jkt string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.bound == nil {
		d.bound = map[string]string{}
	}
	d.bound[token] = jkt
}

// boundTo returns the thumbprint token is bound to ("" for none).
func (d *dpop) boundTo(token string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.bound[token]
}

// apiNonceOK reports whether a proof to the API carries its nonce, when
// it asks for one every n requests (n 0: never): the nonce is renewed
// after n requests, and the one before stays good. When not, it returns
// the nonce to ask for.
func (d *dpop) apiNonceOK(p proof, n int) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n > 0 {
		if d.apiNonce == "" || d.apiUses >= n {
			d.apiPrev, d.apiNonce, d.apiUses = d.apiNonce, newNonce(), 0
		}
		if p.nonce == "" || p.nonce != d.apiNonce && p.nonce != d.apiPrev {
			d.stats.APIChallenges++
			return d.apiNonce, false
		}
		d.apiUses++
	}
	d.stats.Proofs++
	return "", true
}

func (d *dpop) refused() {
	d.mu.Lock()
	d.stats.Refused++
	d.mu.Unlock()
}

// DPoPStats returns the counts of the DPoP checks so far.
func (s *Server) DPoPStats() DPoPStats {
	s.dpop.mu.Lock()
	defer s.dpop.mu.Unlock()
	return s.dpop.stats
}
