package googlefake

import (
	"net/http"
	"slices"
	"strings"
)

// The Directory API's path and the scopes that read its listings.
const (
	apiPrefix = "/admin/directory/v1/"
	scopeBase = "https://www.googleapis.com/auth/admin.directory."
)

// scopesOf are the scopes, any of which reads each kind of listing.
var scopesOf = map[string][]string{
	"users":   {scopeBase + "user", scopeBase + "user.readonly"},
	"groups":  {scopeBase + "group", scopeBase + "group.readonly"},
	"members": {scopeBase + "group", scopeBase + "group.readonly", scopeBase + "group.member", scopeBase + "group.member.readonly"},
}

// api serves the Directory API calls.
func (s *Server) api(w http.ResponseWriter, r *http.Request) {
	grants, ok := s.tokens.Grants(r, "Bearer")
	if !ok {
		writeError(w, http.StatusUnauthorized, "authError", "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
		return
	}
	rest, isAPI := strings.CutPrefix(r.URL.Path, apiPrefix)
	parts := strings.Split(rest, "/")
	kind := map[int]string{1: parts[0], 2: "groups", 3: "members"}[len(parts)]
	if !isAPI || scopesOf[kind] == nil || len(parts) > 1 && parts[0] != "groups" || len(parts) == 3 && parts[2] != "members" {
		writeError(w, http.StatusNotFound, "notFound", "Not Found")
		return
	}
	if r.Method != http.MethodGet {
		writeError(w, http.StatusMethodNotAllowed, "httpMethodNotAllowed", "Method Not Allowed")
		return
	}
	switch {
	case s.opts.APIDisabled:
		writeError(w, http.StatusForbidden, "accessNotConfigured", "Admin SDK API has not been used in project "+FakeProject+
			" before or it is disabled. Enable it by visiting https://console.developers.google.com/apis/api/admin.googleapis.com/overview?project="+FakeProject+
			" then retry. If you enabled this API recently, wait a few minutes for the action to propagate to our systems and retry.")
		return
	case s.opts.APIAccessOff:
		writeError(w, http.StatusForbidden, "domainCannotUseApis", "Domain cannot use apis.")
		return
	}
	if !slices.ContainsFunc(scopesOf[kind], func(sc string) bool { return slices.Contains(grants, sc) }) {
		writeError(w, http.StatusForbidden, "insufficientPermissions", "Request had insufficient authentication scopes.")
		return
	}
	delegated, ok := s.admin(grants)
	if !ok {
		writeError(w, http.StatusForbidden, "forbidden", "Not Authorized to access this resource/api")
		return
	}
	switch len(parts) {
	case 1:
		s.list(w, r, kind, delegated)
	case 2:
		s.getGroup(w, r, parts[1])
	case 3:
		s.members(w, r, parts[1])
	}
}

// admin reports whether the token acts for an administrator: the user
// it impersonates (delegated), or a service account an administrator
// role is assigned to. Any other service account acts for itself and
// reads nothing.
func (s *Server) admin(grants []string) (delegated, ok bool) {
	for _, g := range grants {
		if sub, ok := strings.CutPrefix(g, subjectGrant); ok {
			u := s.users[sub]
			return true, u != nil && u.IsAdmin && !u.Suspended
		}
	}
	for _, g := range grants {
		if sa, ok := strings.CutPrefix(g, accountGrant); ok && slices.ContainsFunc(s.dom.AdminAccounts, func(a string) bool { return strings.EqualFold(a, sa) }) {
			return false, true
		}
	}
	return false, false
}

// FakeProject is the Google Cloud project of the fake's service accounts.
const FakeProject = "orgsync-fake"
