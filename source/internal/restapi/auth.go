package restapi

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/orgsync/orgsync/secret"
)

// Auth says how requests are authorized: one credential kind. Its token
// sources are built on golang.org/x/oauth2: tokens are fetched, cached
// and renewed by it. The kinds every vendor shares are here (an API
// token, a client secret, a private-key JWT, a client assertion read from
// a file, the JWT bearer grant); a vendor's own kinds (a metadata server,
// a managed identity, IAM Credentials' signJwt) are in its package.
type Auth interface {
	// TokenSource returns where tokens come from; hc sends the token
	// requests (with the client's retries on throttling), and ctx is
	// their lifetime.
	TokenSource(ctx context.Context, hc *http.Client) oauth2.TokenSource
	// Where names the token endpoint (or the scheme) for errors.
	Where() string
}

// prover is an Auth whose requests may prove possession of a key (DPoP).
type prover interface {
	dpop() (*dpopKey, error)
}

// asserter is an Auth that signs a client assertion for each token
// request (assertionTransport).
type asserter interface {
	sign(now time.Time) (string, error)
}

// StaticToken sends the same credential with every request, as
// "Authorization: <Scheme> <Token>" (Okta's "SSWS" API tokens).
type StaticToken struct {
	Scheme string
	Token  secret.Value
}

func (s StaticToken) TokenSource(context.Context, *http.Client) oauth2.TokenSource {
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: s.Token.Reveal(), TokenType: s.Scheme})
}

func (s StaticToken) Where() string { return s.Scheme + " token" }

// ClientSecret is the OAuth 2.0 client credentials grant with a client
// secret (RFC 6749 section 4.4), sent in the request body.
type ClientSecret struct {
	TokenURL, ClientID string
	Secret             secret.Value
	Scopes             []string
}

func (c ClientSecret) TokenSource(ctx context.Context, hc *http.Client) oauth2.TokenSource {
	cfg := &clientcredentials.Config{ClientID: c.ClientID, ClientSecret: c.Secret.Reveal(), TokenURL: c.TokenURL,
		Scopes: c.Scopes, AuthStyle: oauth2.AuthStyleInParams}
	return cfg.TokenSource(context.WithValue(ctx, oauth2.HTTPClient, hc))
}

func (c ClientSecret) Where() string { return c.TokenURL }

// PrivateKeyJWT is the client credentials grant where the client proves
// who it is with a JWT it signs (RFC 7523 section 2.2, "private_key_jwt"):
// Entra ID's certificate credentials and Okta's service apps. A new
// assertion (new jti, iat and exp) is signed for each token request that
// goes out, retries and DPoP resends included: an assertion's jti may be
// used once (assertionTransport).
type PrivateKeyJWT struct {
	TokenURL, ClientID string
	Key                *rsa.PrivateKey
	// Header holds extra JOSE header fields: "x5t" (Entra ID: the
	// certificate's thumbprint) or "kid" (Okta: the key's id).
	Header map[string]string
	Scopes []string
	// Lifetime of each assertion (default 5 minutes).
	Lifetime time.Duration
	// DPoP says when requests prove possession of an ephemeral key
	// (Okta's service apps that require DPoP); default DPoPNever.
	DPoP DPoPMode
}

// Client assertion type of RFC 7523.
const assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

func (p PrivateKeyJWT) TokenSource(ctx context.Context, hc *http.Client) oauth2.TokenSource {
	return newAssertionSource(ctx, hc, p.TokenURL, p.ClientID, p.Scopes)
}

func (p PrivateKeyJWT) Where() string { return p.TokenURL }

// dpop returns the key of the client's DPoP proofs, nil for none.
func (p PrivateKeyJWT) dpop() (*dpopKey, error) {
	if p.DPoP == DPoPNever {
		return nil, nil
	}
	return newDPoPKey(p.DPoP)
}

// AssertionFile is the client credentials grant with a client assertion
// that another party issues into a file (RFC 7523 section 2.2): workload
// identity federation, where Kubernetes projects a service account token
// that the identity provider trusts (AKS: AZURE_FEDERATED_TOKEN_FILE).
// The file is read anew for each token request that goes out: the token
// in it rotates.
type AssertionFile struct {
	TokenURL, ClientID, Path string
	Scopes                   []string
}

func (a AssertionFile) TokenSource(ctx context.Context, hc *http.Client) oauth2.TokenSource {
	return newAssertionSource(ctx, hc, a.TokenURL, a.ClientID, a.Scopes)
}

func (a AssertionFile) Where() string { return a.TokenURL }

// sign returns the file's token.
func (a AssertionFile) sign(time.Time) (string, error) {
	b, err := os.ReadFile(a.Path)
	if err != nil {
		return "", fmt.Errorf("reading the federated token file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("the federated token file %s is empty", a.Path)
	}
	return tok, nil
}

// newAssertionSource returns the token source of a client credentials
// grant with a client assertion; the token transport puts the assertion
// in (assertionTransport).
func newAssertionSource(ctx context.Context, hc *http.Client, tokenURL, clientID string, scopes []string) oauth2.TokenSource {
	cfg := &clientcredentials.Config{ClientID: clientID, TokenURL: tokenURL, Scopes: scopes, AuthStyle: oauth2.AuthStyleInParams,
		EndpointParams: url.Values{"client_assertion_type": {assertionType}}}
	return cfg.TokenSource(context.WithValue(ctx, oauth2.HTTPClient, hc))
}

// assertionTransport puts a freshly signed client assertion into every
// token request it sends, so that each attempt (a retry after 429 or a
// server error, a DPoP resend) carries a jti of its own.
type assertionTransport struct {
	sign func(now time.Time) (string, error)
	base http.RoundTripper
}

func (t *assertionTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return t.base.RoundTrip(req)
	}
	b, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(b))
	if err != nil {
		return nil, fmt.Errorf("the token request's body: %w", err)
	}
	signed, err := t.sign(time.Now())
	if err != nil {
		return nil, &AssertionError{Err: err}
	}
	form.Set("client_assertion", signed)
	body := form.Encode()
	r := req.Clone(req.Context())
	r.Body, r.ContentLength = io.NopCloser(strings.NewReader(body)), int64(len(body))
	return t.base.RoundTrip(r)
}

// AssertionError is a client assertion that could not be made: a key
// that does not sign, a federated token file missing or empty. It is not
// retried: it fails the same way again.
type AssertionError struct{ Err error }

func (e *AssertionError) Error() string { return e.Err.Error() }

func (e *AssertionError) Unwrap() error { return e.Err }

// sign returns the client assertion: RS256, issuer and subject the client,
// audience the token endpoint, a unique id.
func (p PrivateKeyJWT) sign(now time.Time) (string, error) {
	life := p.Lifetime
	if life == 0 {
		life = 5 * time.Minute
	}
	t := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.RegisteredClaims{
		Issuer: p.ClientID, Subject: p.ClientID, Audience: jwt.ClaimStrings{p.TokenURL}, ID: newJTI(),
		IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(life)),
	})
	for k, v := range p.Header {
		t.Header[k] = v
	}
	s, err := t.SignedString(p.Key)
	if err != nil {
		return "", fmt.Errorf("signing the client assertion: %w", err)
	}
	return s, nil
}

// newJTI returns a unique JWT id (jti): 16 random bytes in hex.
func newJTI() string {
	id := make([]byte, 16)
	_, _ = rand.Read(id) // never fails
	return hex.EncodeToString(id)
}

// AuthError is a failure to get an access token: a wrong secret or key, an
// unknown client, a missing permission. It is not retried.
type AuthError struct {
	Where string // the token endpoint
	Err   error  // often an *oauth2.RetrieveError with the server's error code
}

func (e *AuthError) Error() string {
	return fmt.Sprintf("getting an access token from %s: %v", e.Where, e.Err)
}

func (e *AuthError) Unwrap() error { return e.Err }

// NamedTokenSource is src whose errors are AuthErrors naming where, the
// endpoint src gets its tokens from: an error of a token source used
// inside another one's sign-in (the Security Token Service's inside
// signJwt's) then names the endpoint that refused.
func NamedTokenSource(src oauth2.TokenSource, where string) oauth2.TokenSource {
	return authErrors{src: src, where: where}
}

// authErrors wraps the errors of a token source in AuthError.
type authErrors struct {
	src   oauth2.TokenSource
	where string
}

func (a authErrors) Token() (*oauth2.Token, error) {
	t, err := a.src.Token()
	if err != nil {
		return nil, &AuthError{Where: a.where, Err: err}
	}
	return t, nil
}
