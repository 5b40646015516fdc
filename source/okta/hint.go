package okta

import (
	"errors"
	"net/http"
	"strings"

	"github.com/orgsync/orgsync/source/internal/restapi"
)

// hint adds to err what to do and which key to check: for an orgURL that
// cannot be reached, a credential refused and a call the API refuses.
func (s *Source) hint(err error) error {
	advice := restapi.ReachAdvice(err, restapi.URLKey{Key: "orgURL", URL: s.cfg.OrgURL})
	if advice == "" {
		advice = s.signInAdvice(err)
	}
	return restapi.WithAdvice(err, advice)
}

// signInAdvice says what to check when the token endpoint or the API
// refuses the credential or a call.
func (s *Source) signInAdvice(err error) string {
	switch code, _ := restapi.OAuthError(err); code {
	case "invalid_client":
		return "check clientId, privateKey and keyId: the service app must have the key's public part (and kid) in its keys, and use private_key_jwt client authentication"
	case "invalid_dpop_proof":
		if s.cfg.DPoP == "never" {
			return "the service app requires DPoP (\"Require Demonstrating Proof of Possession (DPoP) header in token requests\"): set dpop to auto or always, or clear that setting in the app's General settings"
		}
		return "the token endpoint refused orgsync's DPoP proof: check this machine's clock (a proof is dated) and any proxy that strips the DPoP header; with dpop: always, check that the app requires DPoP, or set dpop to auto"
	case "use_dpop_nonce":
		return "the token endpoint kept asking for a new DPoP nonce: try again, and check any proxy that strips the DPoP-Nonce header"
	case "invalid_scope":
		return "grant the service app the scopes okta.users.read and okta.groups.read (Okta API Scopes), or check scopes"
	}
	var se *restapi.StatusError
	switch {
	case !errors.As(err, &se):
	case se.Status == http.StatusUnauthorized && s.cfg.APIToken.IsSet():
		return "check apiToken: the token is wrong, revoked, or expired (an API token expires after 30 days without use), or belongs to another organization than orgURL"
	case se.Status == http.StatusUnauthorized:
		return "the access token was refused: check orgURL, and this machine's clock when the app requires DPoP (each request's proof is dated)"
	case se.Status == http.StatusForbidden && s.cfg.APIToken.IsSet():
		return "the API token's administrator needs a role that reads users and groups, such as Read-Only Administrator"
	case se.Status == http.StatusNotFound && !strings.Contains(se.Path, "/api/v1/groups/"):
		return "check orgURL (" + s.cfg.OrgURL + "): it is the organization's address, such as https://example.okta.com, without a path; it did not answer as Okta does"
	case se.Status == http.StatusForbidden:
		return "grant the service app the scopes okta.users.read and okta.groups.read and an administrator role that reads users and groups (such as Read-Only Administrator)"
	}
	return ""
}
