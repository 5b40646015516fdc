package googlefake

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/orgsync/orgsync/source/internal/fakeapi"
)

// The paths of the keyless routes: the metadata server's (at
// http://metadata.google.internal on Google Cloud), the Security Token
// Service's (https://sts.googleapis.com) and IAM Credentials'
// (https://iamcredentials.googleapis.com), here on the fake's address.
const (
	MetadataPath = "/computeMetadata/v1/instance/service-accounts/default/"
	STSPath      = "/v1/token"
	iamPrefix    = "/v1/projects/-/serviceAccounts/"
)

// CloudPlatformScope is the scope of Google Cloud APIs (IAM Credentials).
const CloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"

// metadata serves the metadata server's token and email of
// MetadataAccount, as it does: only to a request with "Metadata-Flavor:
// Google" that no proxy relayed (X-Forwarded-For), the token for the
// scopes asked for (default cloud-platform), or on a VM
// (Options.MetadataScopes) its access scopes.
func (s *Server) metadata(w http.ResponseWriter, r *http.Request) {
	item := strings.TrimPrefix(r.URL.Path, MetadataPath)
	switch {
	case r.Header.Get("Metadata-Flavor") != "Google" || r.Header.Get("X-Forwarded-For") != "":
		http.Error(w, "Missing required header: Metadata-Flavor", http.StatusForbidden)
		return
	case s.opts.MetadataAccount == "" || item != "token" && item != "email":
		http.NotFound(w, r)
		return
	case item == "email":
		w.Header().Set("Content-Type", "application/text")
		fmt.Fprint(w, s.opts.MetadataAccount)
		return
	}
	scopes := []string{CloudPlatformScope}
	if sc := r.URL.Query().Get("scopes"); sc != "" {
		scopes = strings.Split(sc, ",")
	}
	if s.opts.MetadataScopes != nil {
		scopes = s.opts.MetadataScopes
	}
	tok, life := s.tokens.Issue(append(scopes, accountGrant+s.opts.MetadataAccount)...)
	fakeapi.WriteJSON(w, http.StatusOK, map[string]any{"access_token": tok, "expires_in": life, "token_type": "Bearer"})
}

// The token exchange of the Security Token Service (RFC 8693).
const (
	tokenExchange   = "urn:ietf:params:oauth:grant-type:token-exchange"
	accessTokenType = "urn:ietf:params:oauth:token-type:access_token"
)

// sts exchanges an OIDC token of a provider's issuer for a federated
// access token, as the Security Token Service does: the audience names a
// provider, the token is signed by the provider's issuer, within its
// lifetime, for one of the provider's allowed audiences.
func (s *Server) sts(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.ParseForm() != nil {
		fakeapi.OAuthError(w, http.StatusBadRequest, "invalid_request", "Bad Request")
		return
	}
	f := r.PostForm
	if f.Get("grant_type") != tokenExchange || f.Get("requested_token_type") != accessTokenType {
		fakeapi.OAuthError(w, http.StatusBadRequest, "invalid_request", "Invalid value for \"grant_type\" or \"requested_token_type\".")
		return
	}
	name := strings.TrimPrefix(f.Get("audience"), "//iam.googleapis.com/")
	i := slices.IndexFunc(s.dom.Providers, func(p Provider) bool { return p.Name == name })
	if i < 0 {
		fakeapi.OAuthError(w, http.StatusBadRequest, "invalid_target", "The target service indicated by the \"audience\" parameters is invalid. This might either be because the pool or provider is disabled or deleted or because it doesn't exist.")
		return
	}
	p := &s.dom.Providers[i]
	if p.AWS {
		arn, err := s.checkAWS(f.Get("subject_token"), f.Get("audience"))
		if err != nil || f.Get("subject_token_type") != awsTokenType {
			fakeapi.OAuthError(w, http.StatusBadRequest, "invalid_grant", fmt.Sprintf("The AWS subject token is invalid: %v", err))
			return
		}
		s.federated(w, f, p.Principal(arn))
		return
	}
	c, err := fakeapi.CheckIssued(f.Get("subject_token"), s.dom.Issuers)
	allowed := p.AllowedAudiences
	if len(allowed) == 0 {
		allowed = []string{"https://iam.googleapis.com/" + p.Name}
	}
	switch {
	case err != nil || c.Issuer != p.Issuer:
		fakeapi.OAuthError(w, http.StatusBadRequest, "invalid_grant", fmt.Sprintf("The issuer in ID Token %s does not match the expected ones, or its signature or lifetime is invalid: %v", c.Issuer, err))
		return
	case !slices.ContainsFunc(c.Audience, func(a string) bool { return slices.Contains(allowed, a) }):
		fakeapi.OAuthError(w, http.StatusBadRequest, "invalid_grant", fmt.Sprintf("The audience in ID Token %v does not match the expected audience.", c.Audience))
		return
	}
	s.federated(w, f, p.Principal(c.Subject))
}

// federated answers a federated access token of principal for the
// scopes asked for.
func (s *Server) federated(w http.ResponseWriter, f url.Values, principal string) {
	tok, life := s.tokens.Issue(append(strings.Fields(f.Get("scope")), principalGrant+principal)...)
	fakeapi.WriteJSON(w, http.StatusOK, map[string]any{"access_token": tok, "issued_token_type": accessTokenType, "token_type": "Bearer", "expires_in": life})
}

// iamCredentials serves IAM Credentials' signJwt and
// generateAccessToken of a service account, for a caller with the
// cloud-platform scope who is one of the account's token creators.
func (s *Server) iamCredentials(w http.ResponseWriter, r *http.Request) {
	grants, ok := s.tokens.Grants(r, "Bearer")
	if !ok {
		rpcError(w, http.StatusUnauthorized, "UNAUTHENTICATED", "ACCESS_TOKEN_TYPE_UNSUPPORTED", "Request had invalid authentication credentials.")
		return
	}
	email, method, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, iamPrefix), ":")
	acct := s.account(email)
	switch {
	case r.Method != http.MethodPost || method != "signJwt" && method != "generateAccessToken":
		rpcError(w, http.StatusNotFound, "NOT_FOUND", "", "Not Found")
		return
	case !slices.Contains(grants, CloudPlatformScope):
		rpcError(w, http.StatusForbidden, "PERMISSION_DENIED", "ACCESS_TOKEN_SCOPE_INSUFFICIENT", "Request had insufficient authentication scopes.")
		return
	case acct == nil || !s.tokenCreator(email, grants):
		rpcError(w, http.StatusForbidden, "PERMISSION_DENIED", "IAM_PERMISSION_DENIED",
			fmt.Sprintf("Permission 'iam.serviceAccounts.%s' denied on resource (or it may not exist).", map[string]string{"signJwt": "signJwt", "generateAccessToken": "getAccessToken"}[method]))
		return
	}
	if method == "signJwt" {
		s.signJWT(w, r, acct)
		return
	}
	var body struct {
		Scope []string `json:"scope"`
	}
	if json.NewDecoder(r.Body).Decode(&body) != nil || len(body.Scope) == 0 {
		rpcError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "", "Scope required.")
		return
	}
	tok, life := s.tokens.Issue(append(body.Scope, accountGrant+acct.Email)...)
	fakeapi.WriteJSON(w, http.StatusOK, map[string]any{"accessToken": tok,
		"expireTime": time.Now().Add(time.Duration(life) * time.Second).UTC().Format(time.RFC3339)})
}

// signJWT signs the payload with the key Google manages for acct,
// refusing an expiry in the past or more than 12 hours ahead.
func (s *Server) signJWT(w http.ResponseWriter, r *http.Request, acct *ServiceAccount) {
	var body struct {
		Payload string `json:"payload"`
	}
	var claims jwt.MapClaims
	if json.NewDecoder(r.Body).Decode(&body) != nil || json.Unmarshal([]byte(body.Payload), &claims) != nil {
		rpcError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "", "Invalid JWT payload: not a JSON object.")
		return
	}
	if exp, err := claims.GetExpirationTime(); err != nil || exp != nil && (exp.Before(time.Now()) || exp.After(time.Now().Add(12*time.Hour))) {
		rpcError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "", "Invalid JWT payload: exp must be an integer timestamp that is not in the past and no more than 12 hours in the future.")
		return
	}
	key, err := s.managedKey(acct)
	if err != nil {
		rpcError(w, http.StatusInternalServerError, "INTERNAL", "", err.Error())
		return
	}
	t := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	t.Header["kid"] = acct.managedKeyID()
	signed, err := t.SignedString(key)
	if err != nil {
		rpcError(w, http.StatusInternalServerError, "INTERNAL", "", err.Error())
		return
	}
	fakeapi.WriteJSON(w, http.StatusOK, map[string]string{"keyId": acct.managedKeyID(), "signedJwt": signed})
}

// managedKey returns the key Google manages for acct, made at first use.
func (s *Server) managedKey(acct *ServiceAccount) (*rsa.PrivateKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if acct.managed == nil {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return nil, err
		}
		acct.managed = k
	}
	return acct.managed, nil
}

// tokenCreator reports whether the caller of grants may act as the
// service account email.
func (s *Server) tokenCreator(email string, grants []string) bool {
	for _, g := range grants {
		member := ""
		if sa, ok := strings.CutPrefix(g, accountGrant); ok {
			member = "serviceAccount:" + sa
		} else if p, ok := strings.CutPrefix(g, principalGrant); ok {
			member = p
		}
		if member != "" && slices.ContainsFunc(s.dom.TokenCreators[strings.ToLower(email)], func(m string) bool { return strings.EqualFold(m, member) }) {
			return true
		}
	}
	return false
}

// rpcError writes a Google Cloud API's error answer (google.rpc.Status,
// with an ErrorInfo reason when there is one).
func rpcError(w http.ResponseWriter, status int, code, reason, msg string) {
	e := map[string]any{"code": status, "message": msg, "status": code}
	if reason != "" {
		e["details"] = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason, "domain": "iam.googleapis.com"}}
	}
	fakeapi.WriteJSON(w, status, map[string]any{"error": e})
}
