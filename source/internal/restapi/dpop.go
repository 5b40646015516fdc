package restapi

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// DPoPMode says when a PrivateKeyJWT sign-in proves possession of a key
// with DPoP (RFC 9449), for authorization servers (Okta's service apps)
// that bind access tokens to a key.
type DPoPMode int

const (
	// DPoPNever sends no DPoP proof.
	DPoPNever DPoPMode = iota
	// DPoPAuto sends proofs once the token endpoint answers
	// invalid_dpop_proof (the app requires DPoP), then for the rest of
	// the client's life.
	DPoPAuto
	// DPoPAlways sends a proof with every token request.
	DPoPAlways
)

// dpopKey is the ephemeral key pair of one client's proofs: ES256 on
// P-256, made by New and never stored.
type dpopKey struct {
	key  *ecdsa.PrivateKey
	jwk  map[string]string
	mode DPoPMode
	// on is whether token requests carry proofs (DPoPAlways, or
	// DPoPAuto after the token endpoint asked for them).
	on atomic.Bool
}

func newDPoPKey(mode DPoPMode) (*dpopKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("making the DPoP key: %w", err)
	}
	pub, err := key.PublicKey.ECDH()
	if err != nil {
		return nil, fmt.Errorf("making the DPoP key: %w", err)
	}
	xy := pub.Bytes()[1:] // uncompressed point: 0x04 || x || y
	b64 := base64.RawURLEncoding.EncodeToString
	d := &dpopKey{key: key, mode: mode, jwk: map[string]string{"kty": "EC", "crv": "P-256", "x": b64(xy[:32]), "y": b64(xy[32:])}}
	d.on.Store(mode == DPoPAlways)
	return d, nil
}

// proof signs a DPoP proof for a request of method to u: htu is u without
// its query and fragment; ath binds it to the access token (resource
// requests); nonce is the server's latest DPoP-Nonce ("" for none).
func (d *dpopKey) proof(method string, u *url.URL, nonce, token string) (string, error) {
	htu := url.URL{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Host), Path: u.Path, RawPath: u.RawPath}
	claims := jwt.MapClaims{"htm": method, "htu": htu.String(), "iat": time.Now().Unix(), "jti": newJTI()}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	t := jwt.NewWithClaims(jwt.SigningMethodES256, claims)
	t.Header["typ"] = "dpop+jwt"
	t.Header["jwk"] = d.jwk
	s, err := t.SignedString(d.key)
	if err != nil {
		return "", fmt.Errorf("signing the DPoP proof: %w", err)
	}
	return s, nil
}

// dpopTransport adds a fresh DPoP proof to each request it sends (each
// attempt, each page) and resends a request once for each nonce the
// server asks for. One serves the token endpoint (proofs when the key is
// on), another the API (proofs with each DPoP access token).
type dpopTransport struct {
	key   *dpopKey
	base  http.RoundTripper
	token bool // the token endpoint's transport
	// dropped is told of each answer dropped to send a request again
	dropped func(*http.Response)
	mu      sync.Mutex
	nonce   string // the server's latest DPoP-Nonce
}

// maxDPoPResends bounds the resends of one request: the switch to proofs
// (DPoPAuto) and a nonce challenge.
const maxDPoPResends = 2

func (t *dpopTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
	}
	for resends := 0; ; resends++ {
		nonce, resp, err := t.send(req, body)
		if err != nil || resends == maxDPoPResends || !t.resend(resp, nonce) {
			return resp, err
		}
		t.dropped(resp)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// send sends a copy of req with a proof when one is due; nonce is the
// nonce it carried (nil: no proof).
func (t *dpopTransport) send(req *http.Request, body []byte) (nonce *string, resp *http.Response, err error) {
	r := req.Clone(req.Context())
	if body != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	access, isDPoP := strings.CutPrefix(req.Header.Get("Authorization"), "DPoP ")
	if t.token && t.key.on.Load() || !t.token && isDPoP {
		t.mu.Lock()
		n := t.nonce
		t.mu.Unlock()
		p, err := t.key.proof(req.Method, req.URL, n, access)
		if err != nil {
			return nil, nil, err
		}
		r.Header.Set("DPoP", p)
		nonce = &n
	}
	resp, err = t.base.RoundTrip(r)
	return nonce, resp, err
}

// resend notes the nonce resp gives and reports whether the request is
// to be sent again: the token endpoint asked for proofs (DPoPAuto), or
// the server asked for a nonce other than the one sent.
func (t *dpopTransport) resend(resp *http.Response, sent *string) bool {
	given := resp.Header.Get("DPoP-Nonce")
	if given != "" {
		t.mu.Lock()
		t.nonce = given
		t.mu.Unlock()
	}
	var challenged bool
	switch {
	case !t.token:
		challenged = resp.StatusCode == http.StatusUnauthorized && strings.Contains(resp.Header.Get("WWW-Authenticate"), "use_dpop_nonce")
	case resp.StatusCode != http.StatusBadRequest:
		return false
	default:
		code := tokenErrorCode(resp)
		if sent == nil && code == "invalid_dpop_proof" && t.key.mode == DPoPAuto {
			t.key.on.Store(true)
			return true
		}
		challenged = code == "use_dpop_nonce"
	}
	return challenged && sent != nil && given != "" && given != *sent
}

// tokenErrorCode returns the error code of a token endpoint's error
// answer, leaving its body to be read again.
func tokenErrorCode(resp *http.Response) string {
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	var e struct {
		Error string `json:"error"`
	}
	if err != nil || json.Unmarshal(b, &e) != nil {
		return ""
	}
	return e.Error
}
