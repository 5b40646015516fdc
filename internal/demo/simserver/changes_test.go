package simserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCountSeesWhatIsAskedToChange: action requests and invite resends
// and revokes are writes; a membership removed, a removal from the
// organization, a group deleted and an invite revoked are destructive;
// a testOnly request is counted apart; reads are not counted; the
// simulator still gets the body.
func TestCountSeesWhatIsAskedToChange(t *testing.T) {
	t.Parallel()
	var bodies []string
	h, c := Count(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(b))
	}))
	send := func(method, path, body string) {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(method, path, strings.NewReader(body)))
	}
	action := `[{"user":"a@example.com","do":[{"add":{"group":["X"]}},{"remove":{"group":["Y"]}}]},` +
		`{"user":"b@example.com","do":[{"removeFromOrg":{}}]},{"usergroup":"G","do":[{"deleteUserGroup":{}}]}]`
	send(http.MethodPost, "/v2/usermanagement/action/org", action)
	send(http.MethodPost, "/v2/usermanagement/action/org?testOnly=true", action)
	send(http.MethodDelete, "/v2/usermanagement/organizations/org/invites/c@example.com", "")
	send(http.MethodPost, "/v2/usermanagement/organizations/org/invites/d@example.com", "")
	send(http.MethodGet, "/v2/usermanagement/users/org/0", "")
	if c.Writes() != 3 || c.Destructive() != 4 || c.TestOnly() != 1 {
		t.Errorf("writes %d, destructive %d, testOnly %d; want 3, 4 and 1", c.Writes(), c.Destructive(), c.TestOnly())
	}
	if bodies[0] != action {
		t.Errorf("the simulator got %q", bodies[0])
	}
}
