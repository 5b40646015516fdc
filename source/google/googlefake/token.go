package googlefake

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/orgsync/orgsync/source/internal/fakeapi"
)

// tokenPath is the token endpoint's path (Google's is
// https://oauth2.googleapis.com/token).
const tokenPath = "/token"

// The grant type of a service account's token request (RFC 7523).
const jwtBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// maxLifetime is the longest an assertion may live (exp - iat).
const maxLifetime = time.Hour

// Google's descriptions of the refusals.
const (
	shortLived   = "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
	unauthorized = "Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested."
)

// claims are a service account's assertion claims.
type claims struct {
	jwt.RegisteredClaims
	Scope string `json:"scope"`
}

// token serves POST /token: the JWT bearer grant of a service account,
// for itself or, with sub, for a user of the domain (domain-wide
// delegation of every scope asked for).
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.ParseForm() != nil {
		fakeapi.OAuthError(w, http.StatusBadRequest, "invalid_request", "Bad Request")
		return
	}
	if gt := r.PostForm.Get("grant_type"); gt != jwtBearer {
		fakeapi.OAuthError(w, http.StatusBadRequest, "unsupported_grant_type", "Invalid grant_type: "+gt)
		return
	}
	c, acct, err := s.verify(r.PostForm.Get("assertion"), GoogleTokenURI)
	if err != nil {
		fakeapi.OAuthError(w, http.StatusBadRequest, "invalid_grant", err.Error())
		return
	}
	scopes := strings.Fields(c.Scope)
	if len(scopes) == 0 {
		fakeapi.OAuthError(w, http.StatusBadRequest, "invalid_scope", "Empty or missing scope not allowed.")
		return
	}
	grants := append(slices.Clone(scopes), accountGrant+acct.Email)
	if c.Subject != "" {
		if !s.delegated(acct.ClientID, scopes) {
			fakeapi.OAuthError(w, http.StatusUnauthorized, "unauthorized_client", unauthorized)
			return
		}
		if _, ok := s.users[strings.ToLower(c.Subject)]; !ok || !strings.Contains(c.Subject, "@") {
			fakeapi.OAuthError(w, http.StatusBadRequest, "invalid_grant", "Invalid email or User ID")
			return
		}
		grants = append(slices.Clone(scopes), subjectGrant+strings.ToLower(c.Subject))
	}
	tok, life := s.tokens.Issue(grants...)
	fakeapi.WriteJSON(w, http.StatusOK, map[string]any{"access_token": tok, "expires_in": life, "token_type": "Bearer"})
}

// The grants naming who a token acts for: the impersonated user
// (domain-wide delegation), a service account as itself, a federated
// principal (a workload identity pool's subject).
const (
	subjectGrant   = "sub="
	accountGrant   = "sa="
	principalGrant = "principal="
)

// GoogleTokenURI is the audience every assertion must name, wherever it
// is sent (a proxy in front of the token endpoint included).
const GoogleTokenURI = "https://oauth2.googleapis.com/token"

// verify checks an assertion: signed (RS256) by the key of the service
// account that issued it, for the token endpoint aud, living at most an
// hour and not expired, and not seen before (by its jti, or whole when it
// has none). The errors are Google's descriptions.
func (s *Server) verify(assertion, aud string) (*claims, *ServiceAccount, error) {
	var c claims
	var acct *ServiceAccount
	_, err := jwt.ParseWithClaims(assertion, &c, func(t *jwt.Token) (any, error) {
		acct = s.account(c.Issuer)
		if acct == nil {
			return nil, errors.New("Invalid grant: account not found")
		}
		switch kid, _ := t.Header["kid"].(string); {
		case kid == acct.managedKeyID() && acct.managed != nil:
			return &acct.managed.PublicKey, nil
		case kid != "" && kid != acct.KeyID || acct.Key == nil:
			return nil, errors.New("Invalid JWT Signature.")
		}
		return acct.Key, nil
	}, jwt.WithValidMethods([]string{"RS256"}), jwt.WithoutClaimsValidation())
	switch {
	case acct == nil:
		return nil, nil, errors.New("Invalid grant: account not found")
	case err != nil:
		return nil, nil, errors.New("Invalid JWT Signature.")
	case !slices.Contains(c.Audience, aud):
		return nil, nil, errors.New("Invalid JWT: Failed audience check.")
	case !lifetimeOK(&c, time.Now()):
		return nil, nil, errors.New(shortLived)
	case !s.firstUse(assertion, c.ID):
		return nil, nil, errors.New("Invalid JWT: the assertion was used before; sign a new one for each token request.")
	}
	return &c, acct, nil
}

// lifetimeOK reports whether c was issued (not in the future: a clock
// ahead of Google's is refused) and not expired at now, living at most
// an hour.
func lifetimeOK(c *claims, now time.Time) bool {
	if c.IssuedAt == nil || c.ExpiresAt == nil {
		return false
	}
	iat, exp := c.IssuedAt.Time, c.ExpiresAt.Time
	return !iat.After(now) && exp.After(now) && exp.Sub(iat) <= maxLifetime
}

// firstUse records an assertion and reports whether it is new.
func (s *Server) firstUse(assertion, jti string) bool {
	key := "jti:" + jti
	if jti == "" {
		key = assertion
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used[key] {
		return false
	}
	s.used[key] = true
	return true
}

func (s *Server) account(email string) *ServiceAccount {
	for i := range s.dom.Accounts {
		if strings.EqualFold(s.dom.Accounts[i].Email, email) {
			return &s.dom.Accounts[i]
		}
	}
	return nil
}

// delegated reports whether the client id may ask for every scope on
// behalf of a user.
func (s *Server) delegated(clientID string, scopes []string) bool {
	granted, ok := s.dom.Delegation[clientID]
	if !ok {
		return false
	}
	for _, sc := range scopes {
		if !slices.Contains(granted, sc) {
			return false
		}
	}
	return true
}
