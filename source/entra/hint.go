package entra

import (
	"errors"
	"net/http"
	"strings"

	"github.com/orgsync/orgsync/source/internal/restapi"
)

// hint adds to err what to do and which key to check: for an endpoint
// that cannot be reached, a sign-in refused (by the Microsoft identity
// platform's AADSTS code) and a call Microsoft Graph refuses.
func (s *Source) hint(err error) error {
	advice := restapi.ReachAdvice(err, restapi.URLKey{Key: "loginURL", URL: s.cfg.LoginURL}, restapi.URLKey{Key: "graphURL", URL: s.cfg.GraphURL})
	if advice == "" {
		_, desc := restapi.OAuthError(err)
		advice = signInAdvice(desc)
	}
	var se *restapi.StatusError
	if advice == "" && errors.As(err, &se) {
		advice = graphAdvice(se, s.cfg.GraphURL)
	}
	return restapi.WithAdvice(err, advice)
}

// signInAdvice says what to check for the AADSTS code that begins an
// error description of the token endpoint.
func signInAdvice(desc string) string {
	code, _, _ := strings.Cut(desc, ":")
	switch code {
	case "AADSTS7000215", "AADSTS7000222":
		return "check clientSecret: it must hold the Value of a client secret of the app registration (not its Secret ID) that has not expired"
	case "AADSTS90002", "AADSTS900023":
		return "check tenantId: the Directory (tenant) ID of the app registration's tenant, or one of the tenant's verified domains"
	case "AADSTS700016":
		return "check clientId: the Application (client) ID of an app registration in this tenant"
	case "AADSTS700027":
		return "check certificate and privateKey: the certificate must be uploaded to the app registration (Certificates & secrets) and the key must be its own"
	case "AADSTS1002012", "AADSTS500011":
		return "check graphURL: the token is asked for <graphURL>/.default"
	}
	return ""
}

// graphAdvice says what to do when Graph refuses a call: the application
// permission it needs, the token, or an address that is not Graph's root.
func graphAdvice(se *restapi.StatusError, graphURL string) string {
	switch {
	case se.Status == http.StatusNotFound && !strings.HasPrefix(se.Path, "/v1.0/groups/"),
		se.Status == http.StatusBadRequest && strings.Contains(se.Message, "segment"):
		return "check graphURL (" + graphURL + "): it is Microsoft Graph's root, such as https://graph.microsoft.com, without a path"
	}
	switch se.Status {
	case http.StatusForbidden:
		perm := "User.Read.All"
		if strings.Contains(se.Path, "/groups") {
			perm = "GroupMember.Read.All"
		}
		advice := "grant the app registration the Microsoft Graph application permission " + perm +
			" (the source needs User.Read.All and GroupMember.Read.All), with admin consent"
		if strings.HasSuffix(se.Path, "/members") || strings.HasSuffix(se.Path, "/transitiveMembers") {
			advice += "; when the group's membership is hidden (a Microsoft 365 group created with hidden membership), also Member.Read.Hidden"
		}
		return advice
	case http.StatusUnauthorized:
		return "Microsoft Graph refused the access token: check that loginURL and graphURL are of the same cloud"
	}
	return ""
}
