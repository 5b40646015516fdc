package entrafake

import (
	"cmp"
	"crypto/rsa"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/golang-jwt/jwt/v5"

	"github.com/orgsync/orgsync/source/internal/fakeapi"
)

// token serves POST /{tenant}/oauth2/v2.0/token: the client credentials
// grant with client_secret or a client_assertion.
func (s *Server) token(w http.ResponseWriter, r *http.Request, tenant string) {
	if r.Method != http.MethodPost {
		fakeapi.OAuthError(w, http.StatusMethodNotAllowed, "invalid_request", "AADSTS900561: The endpoint only accepts POST requests.")
		return
	}
	if err := r.ParseForm(); err != nil {
		fakeapi.OAuthError(w, http.StatusBadRequest, "invalid_request", "AADSTS900144: The request body must contain a form.")
		return
	}
	f := r.PostForm
	if !s.names(tenant) {
		fakeapi.OAuthError(w, http.StatusBadRequest, "invalid_request", "AADSTS90002: Tenant '"+tenant+"' not found.")
		return
	}
	if f.Get("grant_type") != "client_credentials" {
		fakeapi.OAuthError(w, http.StatusBadRequest, "unsupported_grant_type", "AADSTS70003: The app requested an unsupported grant type.")
		return
	}
	app := s.app(f.Get("client_id"))
	if app == nil {
		fakeapi.OAuthError(w, http.StatusBadRequest, "unauthorized_client", "AADSTS700016: Application with identifier '"+f.Get("client_id")+"' was not found in the directory.")
		return
	}
	if !strings.HasSuffix(f.Get("scope"), "/.default") {
		fakeapi.OAuthError(w, http.StatusBadRequest, "invalid_scope", "AADSTS1002012: The provided value for scope is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier.")
		return
	}
	if code, desc := s.checkCredential(r, app); code != "" {
		fakeapi.OAuthError(w, http.StatusUnauthorized, code, desc)
		return
	}
	perms := app.Permissions
	if perms == nil {
		perms = DefaultPermissions
	}
	tok, life := s.tokens.Issue(perms...)
	fakeapi.WriteJSON(w, http.StatusOK, map[string]any{"token_type": "Bearer", "expires_in": life, "access_token": tok})
}

// names reports whether tenant (a path segment of the token endpoint) is
// the tenant's id or one of its domains, case aside.
func (s *Server) names(tenant string) bool {
	return strings.EqualFold(tenant, s.tenant.ID) || slices.ContainsFunc(s.tenant.Domains, func(d string) bool { return strings.EqualFold(d, tenant) })
}

func (s *Server) app(clientID string) *App {
	for i := range s.tenant.Apps {
		if s.tenant.Apps[i].ClientID == clientID {
			return &s.tenant.Apps[i]
		}
	}
	return nil
}

const assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// selfSigned reports whether an assertion is the app's own (issued by its
// client id: a certificate's), not another issuer's.
func selfSigned(assertion, clientID string) bool {
	var c jwt.RegisteredClaims
	_, _, err := jwt.NewParser().ParseUnverified(assertion, &c)
	return err == nil && c.Issuer == clientID
}

// checkFederated checks a token of another issuer against the app's
// federated credentials, as Entra ID does: signed by the issuer's key,
// within its lifetime, and issuer, subject and audience those of one
// credential (AADSTS700211, 700213 and 700212 say which did not match).
func (s *Server) checkFederated(assertion string, app *App) (code, desc string) {
	const check = ". Please check your federated identity credential Subject, Audience and Issuer against the presented assertion."
	c, err := fakeapi.CheckIssued(assertion, s.tenant.Issuers)
	issuerKnown := slices.ContainsFunc(app.Federated, func(f FederatedCredential) bool { return f.Issuer == c.Issuer })
	switch {
	case !issuerKnown:
		return "invalid_request", "AADSTS700211: No matching federated identity record found for presented assertion issuer '" + c.Issuer + "'" + check
	case errors.Is(err, fakeapi.ErrExpired):
		return "invalid_client", "AADSTS700024: Client assertion is not within its valid time range."
	case err != nil:
		return "invalid_client", "AADSTS50027: JWT token is invalid or malformed: " + err.Error()
	}
	bySubject := slices.IndexFunc(app.Federated, func(f FederatedCredential) bool { return f.Issuer == c.Issuer && f.Subject == c.Subject })
	if bySubject < 0 {
		return "invalid_request", "AADSTS700213: No matching federated identity record found for presented assertion subject '" + c.Subject + "'" + check
	}
	aud := cmp.Or(app.Federated[bySubject].Audience, DefaultFederatedAudience)
	if !slices.Contains(c.Audience, aud) {
		return "invalid_request", "AADSTS700212: No matching federated identity record found for presented assertion audience '" + strings.Join(c.Audience, " ") + "'" + check
	}
	return "", ""
}

// checkCredential returns the error of a wrong secret or assertion.
func (s *Server) checkCredential(r *http.Request, app *App) (code, desc string) {
	f := r.PostForm
	if a := f.Get("client_assertion"); a != "" && f.Get("client_assertion_type") == assertionType && !selfSigned(a, app.ClientID) {
		return s.checkFederated(a, app)
	}
	if a := f.Get("client_assertion"); a != "" {
		if f.Get("client_assertion_type") != assertionType || app.Certificate == nil {
			return "invalid_client", "AADSTS700027: Client assertion failed signature validation."
		}
		aud := "http://" + r.Host + r.URL.Path
		if _, err := fakeapi.CheckAssertion(a, app.ClientID, aud, app.Certificate.PublicKey.(*rsa.PublicKey)); err != nil {
			return "invalid_client", "AADSTS700027: Client assertion failed signature validation: " + err.Error()
		}
		return "", ""
	}
	if app.Secret == "" || f.Get("client_secret") != app.Secret {
		return "invalid_client", "AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID."
	}
	return "", ""
}
