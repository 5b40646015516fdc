package restapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/jwt"

	"github.com/orgsync/orgsync/secret"
)

// JWTBearer is the JWT bearer grant (RFC 7523 section 2.1): a signed JWT
// is the authorization grant itself, as Google's service accounts sign in
// (golang.org/x/oauth2/jwt). With Subject set, the token acts for that
// user (Google Workspace domain-wide delegation). Each assertion carries
// a new jti, so that no two token requests send the same assertion.
type JWTBearer struct {
	TokenURL string
	// Audience is the assertion's audience: the token endpoint's own
	// name, which a proxy at TokenURL does not change (default TokenURL).
	Audience string
	// Email is the issuer (the service account's address); KeyID the
	// key's id (kid); PrivateKey its PEM (PKCS#1 or PKCS#8).
	Email, KeyID string
	PrivateKey   secret.Value
	Subject      string
	Scopes       []string
}

func (j JWTBearer) TokenSource(ctx context.Context, hc *http.Client) oauth2.TokenSource {
	return oauth2.ReuseTokenSource(nil, &bearerSource{ctx: context.WithValue(ctx, oauth2.HTTPClient, hc), j: j})
}

func (j JWTBearer) Where() string { return j.TokenURL }

// bearerSource fetches a token with a freshly signed assertion.
type bearerSource struct {
	ctx context.Context
	j   JWTBearer
}

func (b *bearerSource) Token() (*oauth2.Token, error) {
	cfg := &jwt.Config{Email: b.j.Email, PrivateKey: []byte(b.j.PrivateKey.Reveal()), PrivateKeyID: b.j.KeyID, Subject: b.j.Subject,
		Scopes: b.j.Scopes, TokenURL: b.j.TokenURL, Audience: b.j.Audience, PrivateClaims: map[string]any{"jti": newJTI()}}
	t, err := cfg.TokenSource(b.ctx).Token()
	return t, withOAuthCode(err)
}

// withOAuthCode fills in the error code and description of a token
// endpoint's error answer that x/oauth2/jwt leaves in the body, so that
// OAuthError finds them.
func withOAuthCode(err error) error {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "" {
		return err
	}
	var body struct {
		Code string `json:"error"`
		Desc string `json:"error_description"`
	}
	if json.Unmarshal(re.Body, &body) == nil {
		re.ErrorCode, re.ErrorDescription = body.Code, body.Desc
	}
	return err
}
