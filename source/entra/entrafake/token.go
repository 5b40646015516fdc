package entrafake

import (
	"crypto/rsa"
	"net/http"
	"slices"
	"strings"

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

// checkCredential returns the error of a wrong secret or assertion.
func (s *Server) checkCredential(r *http.Request, app *App) (code, desc string) {
	f := r.PostForm
	if a := f.Get("client_assertion"); a != "" {
		if f.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" || app.Certificate == nil {
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
