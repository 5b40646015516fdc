package google

import (
	"errors"
	"net/http"
	"strings"

	"github.com/orgsync/orgsync/source/internal/restapi"
)

// hint adds to err what to do and which key to check: for an endpoint
// that cannot be reached, a sign-in refused (domain-wide delegation, the
// subject, the key) and a call the Directory API refuses (a scope, the
// subject's role, a field or query it does not know).
func (s *Source) hint(err error) error {
	advice := restapi.ReachAdvice(err, restapi.URLKey{Key: "apiURL", URL: s.cfg.APIURL}, restapi.URLKey{Key: "tokenURL", URL: s.cfg.TokenURL})
	if advice == "" {
		advice = s.signInAdvice(err)
	}
	var se *restapi.StatusError
	if advice == "" && errors.As(err, &se) {
		advice = s.apiAdvice(se)
	}
	return restapi.WithAdvice(err, advice)
}

// delegation says where domain-wide delegation is granted, and by whom.
func (s *Source) delegation() string {
	return "a super administrator grants it in the Admin console (Security > Access and data control > API controls > " +
		"Manage Domain Wide Delegation) to the service account's client ID " + s.clientID + " with the scopes " + strings.Join(Scopes, ",")
}

// signInAdvice says what to check when the token endpoint refuses the
// assertion.
func (s *Source) signInAdvice(err error) string {
	code, desc := restapi.OAuthError(err)
	switch {
	case code == "unauthorized_client":
		return "domain-wide delegation of the directory scopes is missing: " + s.delegation() + " (it can take a while to apply)"
	case strings.Contains(desc, "Invalid email or User ID"):
		return "check subject (" + s.cfg.Subject + "): the administrator the service account acts for must be a user of the account"
	case strings.Contains(desc, "short-lived"):
		return "check this machine's clock: an assertion is valid for an hour from the time it is signed"
	case strings.Contains(desc, "Signature"), strings.Contains(desc, "account not found"):
		return "check credentials: the key file must be a current key of an existing service account (a deleted key or account is refused); create a new JSON key"
	case code != "":
		return "check credentials and tokenURL"
	}
	return ""
}

// scopeFor is the scope of the call to path.
func scopeFor(path string) string {
	switch {
	case strings.HasSuffix(path, "/members"):
		return Scopes[2]
	case strings.Contains(path, "/groups"):
		return Scopes[1]
	}
	return Scopes[0]
}

// apiAdvice says what to do when the Directory API refuses a call.
func (s *Source) apiAdvice(se *restapi.StatusError) string {
	switch {
	case se.Code == "insufficientPermissions":
		return "the token lacks the scope " + scopeFor(se.Path) + ": " + s.delegation()
	case se.Status == http.StatusForbidden:
		return "check subject (" + s.cfg.Subject + "): it must be an administrator whose role reads users and groups (a super administrator, or a role with the Admin API privileges Users > Read and Groups > Read)"
	case se.Code == "invalidParameter" && strings.Contains(se.Message, "field selection"):
		return "check the fields named in users' templates and extraAttributes: Google's user fields are such as primaryEmail, name.givenName, orgUnitPath, addresses.countryCode and customSchemas.<schema>.<field>"
	case se.Status == http.StatusBadRequest && se.Message == "Bad Request":
		return "check customer (" + s.cfg.Customer + ") and domain"
	case se.Status == http.StatusBadRequest:
		return "check users.query, groups.query and the custom schemas (customSchemas.<schema>) named in the templates and extraAttributes"
	case se.Status == http.StatusUnauthorized:
		return "the Directory API refused the access token: check that apiURL and tokenURL belong together"
	case se.Status == http.StatusNotFound && !strings.Contains(se.Path, "/groups/"):
		return "check apiURL (" + s.cfg.APIURL + "): it is the Admin SDK's root, such as " + DefaultAPIURL + ", without a path"
	}
	return ""
}
