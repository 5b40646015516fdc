package fakeapi

import (
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Issuer is an OpenID Connect issuer of workload tokens, as a Kubernetes
// cluster's service account issuer is: the tokens it signs (RS256) name
// the workload (sub) and whom they are for (aud). A fake cloud that
// trusts it (workload identity federation) checks them with Key.
type Issuer struct {
	URL string
	Key *rsa.PublicKey
	key *rsa.PrivateKey
}

// NewIssuer returns an issuer at url with a new key.
func NewIssuer(url string) (*Issuer, error) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	return &Issuer{URL: url, Key: &k.PublicKey, key: k}, nil
}

// Token signs a token for subject sub and audience aud that lives for
// life from now.
func (i *Issuer) Token(sub, aud string, life time.Duration) string {
	now := time.Now()
	t := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.RegisteredClaims{Issuer: i.URL, Subject: sub, Audience: jwt.ClaimStrings{aud},
		IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(life))})
	t.Header["kid"] = "fake-issuer-key"
	s, _ := t.SignedString(i.key) // an RSA key always signs
	return s
}

// Errors of CheckIssued.
var (
	ErrUnknownIssuer = errors.New("unknown issuer")
	ErrExpired       = errors.New("the token is expired or not yet valid")
)

// CheckIssued verifies a workload token: RS256, signed by the key of the
// issuer it names among issuers, within its lifetime. It returns its
// claims; an issuer it does not know is ErrUnknownIssuer, a token out of
// its lifetime ErrExpired.
func CheckIssued(token string, issuers map[string]*rsa.PublicKey) (*jwt.RegisteredClaims, error) {
	var c jwt.RegisteredClaims
	_, err := jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) {
		key := issuers[c.Issuer]
		if key == nil {
			return nil, ErrUnknownIssuer
		}
		return key, nil
	}, jwt.WithValidMethods([]string{"RS256"}), jwt.WithExpirationRequired())
	switch {
	case errors.Is(err, ErrUnknownIssuer):
		return &c, ErrUnknownIssuer
	case errors.Is(err, jwt.ErrTokenExpired), errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return &c, ErrExpired
	case err != nil:
		return &c, fmt.Errorf("invalid token: %w", err)
	}
	return &c, nil
}
