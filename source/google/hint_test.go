package google

import (
	"strings"
	"testing"

	"github.com/orgsync/orgsync/source/internal/restapi"
)

// TestScopeAdvice: a 403 insufficientPermissions names the scope of the
// call that failed and the delegation page.
func TestScopeAdvice(t *testing.T) {
	t.Parallel()
	s := &Source{cfg: Config{Subject: "admin@example.com"}, clientID: "1080"}
	for path, scope := range map[string]string{
		"/admin/directory/v1/users":                          "admin.directory.user.readonly",
		"/admin/directory/v1/groups":                         "admin.directory.group.readonly",
		"/admin/directory/v1/groups/eng@example.com":         "admin.directory.group.readonly",
		"/admin/directory/v1/groups/eng@example.com/members": "admin.directory.group.member.readonly",
	} {
		err := s.hint(&restapi.StatusError{Path: path, Status: 403, Code: "insufficientPermissions", Message: "Request had insufficient authentication scopes."})
		if msg := err.Error(); !strings.Contains(msg, "the token lacks the scope https://www.googleapis.com/auth/"+scope+":") ||
			!strings.Contains(msg, "Manage Domain Wide Delegation") || !strings.Contains(msg, "client ID 1080") {
			t.Errorf("%s: %v", path, err)
		}
	}
}
