package gate

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/orgsync/orgsync/target/umwire"
)

const (
	// maxAssertionAhead is how far ahead the exp of an exchanged JWT may lie.
	maxAssertionAhead = 24 * time.Hour
	// clockSkew tolerates a client clock slightly ahead of the gate's.
	clockSkew = time.Minute
	// maxFormBytes bounds the body of a token request.
	maxFormBytes = 64 << 10
	// accessIssuer is the iss of the access tokens the gate issues.
	accessIssuer = "umsim"
)

// accessClaims are the claims of an access token issued by the gate. The
// standard exp is rounded up to the second for other readers; the gate
// enforces ExpiresMs, so that sub-second lifetimes work.
type accessClaims struct {
	jwt.RegisteredClaims
	Org       string `json:"org"`
	ExpiresMs int64  `json:"exp_ms"`
}

// tokenIssuer issues and verifies access tokens: HS256 JWTs signed with a
// key that lives as long as the gate.
type tokenIssuer struct {
	key      []byte
	lifetime time.Duration
}

// newTokenIssuer issues access tokens signed with a fresh random key.
func newTokenIssuer(lifetime time.Duration) (*tokenIssuer, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("gate: token signing key: %w", err)
	}
	return &tokenIssuer{key: key, lifetime: lifetime}, nil
}

// issue returns a new access token for the client of org.
func (t *tokenIssuer) issue(clientID, org string, now time.Time) (string, error) {
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		return "", fmt.Errorf("gate: token id: %w", err)
	}
	exp := now.Add(t.lifetime)
	c := accessClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    accessIssuer,
			Subject:   clientID,
			ID:        hex.EncodeToString(id),
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(exp.Add(time.Second - 1)),
		},
		Org:       org,
		ExpiresMs: exp.UnixMilli(),
	}
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(t.key)
	if err != nil {
		return "", fmt.Errorf("gate: sign access token: %w", err)
	}
	return s, nil
}

// verify checks the signature and the exact expiry (ExpiresMs) of an
// access token.
func (t *tokenIssuer) verify(token string, now time.Time) (accessClaims, error) {
	var c accessClaims
	_, err := jwt.ParseWithClaims(token, &c, func(*jwt.Token) (any, error) { return t.key, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithoutClaimsValidation())
	if err != nil {
		return accessClaims{}, err
	}
	if now.UnixMilli() >= c.ExpiresMs {
		return accessClaims{}, jwt.ErrTokenExpired
	}
	return c, nil
}

// tokenError is a 400 answer of a token endpoint.
type tokenError struct {
	code        string
	description string
}

// Error returns "code: description".
func (e *tokenError) Error() string { return e.code + ": " + e.description }

// invalidClient is the invalid_client error with a description.
func invalidClient(format string, args ...any) *tokenError {
	return &tokenError{code: umwire.TokenErrInvalidClient, description: fmt.Sprintf(format, args...)}
}

// serveToken serves both token endpoints.
func (g *Gate) serveToken(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeJSON(w, http.StatusMethodNotAllowed, umwire.TokenError{
			Error: umwire.TokenErrInvalidRequest, ErrorDescription: "use POST with a form body"})
		return
	}
	in, terr := g.authenticateClient(w, r)
	if terr == nil {
		if tokenPath(r.URL.Path) == umwire.PathJWTExchange {
			terr = g.checkAssertion(r, in)
		} else {
			terr = checkGrant(r)
		}
	}
	if terr != nil {
		writeJSON(w, http.StatusBadRequest, umwire.TokenError{Error: terr.code, ErrorDescription: terr.description})
		return
	}
	token, err := g.tokens.issue(in.ClientID, g.orgID, g.clock())
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, umwire.TokenError{Error: "server_error", ErrorDescription: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, umwire.TokenResponse{
		TokenType:   umwire.TokenTypeBearer,
		AccessToken: token,
		ExpiresIn:   int64(g.tokens.lifetime / time.Second),
	})
}

// authenticateClient reads the form and checks client_id and client_secret.
func (g *Gate) authenticateClient(w http.ResponseWriter, r *http.Request) (*integration, *tokenError) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		return nil, &tokenError{code: umwire.TokenErrInvalidRequest, description: "unreadable form body: " + err.Error()}
	}
	id := r.PostForm.Get(umwire.FormClientID)
	if id == "" {
		return nil, invalidClient("%s is missing", umwire.FormClientID)
	}
	in := g.integrations[id]
	if in == nil {
		return nil, invalidClient("unknown %s", umwire.FormClientID)
	}
	secret := r.PostForm.Get(umwire.FormClientSecret)
	if subtle.ConstantTimeCompare([]byte(secret), []byte(in.ClientSecret)) != 1 {
		return nil, invalidClient("%s does not match the integration's", umwire.FormClientSecret)
	}
	return in, nil
}

// checkGrant checks the grant_type of a client-credentials request. The
// scope is accepted as given.
func checkGrant(r *http.Request) *tokenError {
	if gt := r.PostForm.Get(umwire.FormGrantType); gt != umwire.GrantClientCredentials {
		return &tokenError{code: umwire.TokenErrUnsupportedGrant,
			description: fmt.Sprintf("%s must be %s", umwire.FormGrantType, umwire.GrantClientCredentials)}
	}
	return nil
}

// checkAssertion verifies the JWT of an exchange against the integration
// (contract 1).
func (g *Gate) checkAssertion(r *http.Request, in *integration) *tokenError {
	raw := r.PostForm.Get(umwire.FormJWTToken)
	if raw == "" {
		return invalidClient("%s is missing", umwire.FormJWTToken)
	}
	base := authBase(r)
	aud := base + umwire.JWTAudiencePath + in.ClientID
	claims := jwt.MapClaims{}
	_, err := jwt.ParseWithClaims(raw, claims, func(*jwt.Token) (any, error) { return in.publicKey, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodRS256.Alg()}),
		jwt.WithIssuer(g.orgID), jwt.WithSubject(in.TechnicalAccountID), jwt.WithAudience(aud),
		jwt.WithExpirationRequired(), jwt.WithTimeFunc(g.clock))
	if err != nil {
		return invalidClient("JWT rejected: %s", describeJWTError(err, aud))
	}
	exp, err := claims.GetExpirationTime()
	if err != nil || exp.Sub(g.clock()) > maxAssertionAhead+clockSkew {
		return invalidClient("JWT rejected: exp must lie at most 24 h ahead")
	}
	scope := base + umwire.JWTScopePath + umwire.ClaimEntUserSDK
	if v, _ := claims[scope].(bool); !v {
		return invalidClient("JWT rejected: claim %q must be true", scope)
	}
	return nil
}

// jwtProblems explains the verification errors of jwt/v5 to a client.
var jwtProblems = []struct {
	err  error
	text string
}{
	{jwt.ErrTokenMalformed, "not a well-formed JWT"},
	{jwt.ErrTokenSignatureInvalid, "signature does not verify against the integration's certificate (RS256 expected)"},
	{jwt.ErrTokenUnverifiable, "signature cannot be verified (RS256 expected)"},
	{jwt.ErrTokenRequiredClaimMissing, "exp claim is missing"},
	{jwt.ErrTokenExpired, "exp lies in the past"},
	{jwt.ErrTokenInvalidIssuer, "iss must be the organization id"},
	{jwt.ErrTokenInvalidSubject, "sub must be the integration's technical account id"},
}

// describeJWTError returns a description of err that echoes no secret.
func describeJWTError(err error, aud string) string {
	if errors.Is(err, jwt.ErrTokenInvalidAudience) {
		return "aud must be " + aud
	}
	for _, p := range jwtProblems {
		if errors.Is(err, p.err) {
			return p.text
		}
	}
	return err.Error()
}

// authBase is scheme://host of the request, the base of the JWT's aud and
// meta-scope claim.
func authBase(r *http.Request) string {
	if r.TLS != nil {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}
