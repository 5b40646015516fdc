package oktafake

import (
	"net/http"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/source/internal/fakeapi"
)

// token serves POST /oauth2/v1/token: client credentials with a
// private-key JWT client assertion and, for an app that requires DPoP, a
// DPoP proof carrying the endpoint's nonce; its token is then of type
// DPoP, bound to the proof's key.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.ParseForm() != nil {
		fakeapi.OAuthError(w, http.StatusBadRequest, "invalid_request", "The token request must be a form POST.")
		return
	}
	f := r.PostForm
	if f.Get("grant_type") != "client_credentials" {
		fakeapi.OAuthError(w, http.StatusBadRequest, "unsupported_grant_type", "The authorization grant type is not supported by the authorization server.")
		return
	}
	var app *App
	for i := range s.org.Apps {
		if s.org.Apps[i].ClientID == f.Get("client_id") {
			app = &s.org.Apps[i]
		}
	}
	if app == nil {
		fakeapi.OAuthError(w, http.StatusUnauthorized, "invalid_client", "The client_id is invalid or the client is not authorized.")
		return
	}
	signed, fresh := s.assertion(r, app)
	if s.tokenFault(w) {
		return
	}
	if signed && !fresh {
		fakeapi.OAuthError(w, http.StatusUnauthorized, "invalid_client", "The client_assertion token has already been used. Sign a new one, with a unique jti, for each token request.")
		return
	}
	var jkt string
	if app.RequireDPoP {
		var ok bool
		if jkt, ok = s.tokenProof(w, r); !ok {
			return
		}
	}
	if !signed {
		fakeapi.OAuthError(w, http.StatusUnauthorized, "invalid_client", "The client_assertion signature is invalid.")
		return
	}
	for _, sc := range strings.Fields(f.Get("scope")) {
		if !slices.Contains(app.Scopes, sc) {
			fakeapi.OAuthError(w, http.StatusBadRequest, "invalid_scope", "The following scopes are not granted to the client: "+sc)
			return
		}
	}
	tok, life := s.tokens.Issue(strings.Fields(f.Get("scope"))...)
	typ := "Bearer"
	if jkt != "" {
		s.dpop.bind(tok, jkt)
		typ = "DPoP"
	}
	fakeapi.WriteJSON(w, http.StatusOK, map[string]any{"token_type": typ, "expires_in": life, "access_token": tok, "scope": f.Get("scope")})
}

// assertion checks the client assertion of a token request: a valid
// signature (signed), and a jti never presented before (fresh). A valid
// assertion's jti counts as used from its first request on, even when
// that request then fails for want of a DPoP proof or nonce: Okta accepts
// an assertion once.
func (s *Server) assertion(r *http.Request, app *App) (signed, fresh bool) {
	f := r.PostForm
	jti, err := fakeapi.CheckAssertion(f.Get("client_assertion"), app.ClientID, "http://"+r.Host+r.URL.Path, app.Key)
	if f.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" || err != nil {
		return false, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.jtis[jti] {
		return true, false
	}
	s.jtis[jti] = true
	return true, true
}

// tokenFault answers the token request with its fault of
// Options.TokenFaults, if any.
func (s *Server) tokenFault(w http.ResponseWriter) bool {
	s.mu.Lock()
	s.tokenRequests++
	status, ok := s.opts.TokenFaults[s.tokenRequests]
	s.mu.Unlock()
	switch {
	case !ok:
	case status == http.StatusTooManyRequests:
		s.gate.Throttle(w)
	default:
		s.gate.Error(w, status)
	}
	return ok
}

// tokenProof checks the DPoP proof of a token request of an app that
// requires DPoP, and returns its key's thumbprint; when it answers the
// request instead (a missing or bad proof, or the nonce challenge), ok is
// false.
func (s *Server) tokenProof(w http.ResponseWriter, r *http.Request) (jkt string, ok bool) {
	p, err := s.dpop.check(r, "")
	if err != nil {
		s.dpop.refused()
		fakeapi.OAuthError(w, http.StatusBadRequest, "invalid_dpop_proof", err.Error())
		return "", false
	}
	if nonce, ok := s.dpop.tokenNonceOK(p); !ok {
		w.Header().Set("DPoP-Nonce", nonce)
		fakeapi.OAuthError(w, http.StatusBadRequest, "use_dpop_nonce", "Authorization server requires nonce in DPoP proof.")
		return "", false
	}
	return p.jkt, true
}
