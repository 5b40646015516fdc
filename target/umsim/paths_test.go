package umsim

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/orgsync/orgsync/target/umwire"
)

// TestPathsAreServedOnlyAsSpecified checks that paths close to, but not
// exactly, the specification's are refused, so that a client sending them
// fails here as it would on the real service: endpoint 1 with a trailing
// slash (that is endpoint 2 with an empty group name), endpoint 2 without
// its page (ambiguous with endpoint 1, see docs/simulator.md, conformance
// notes), and the invite and product listings without their trailing
// slash.
func TestPathsAreServedOnlyAsSpecified(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	tests := []struct {
		name, path string
		status     int
		result     string
	}{
		{"endpoint 1 with a trailing slash", "/users/" + testOrg + "/0/", http.StatusNotFound, umwire.ErrGroupNotFound},
		{"endpoint 2 without its page", "/users/" + testOrg + "/Designers", http.StatusBadRequest, umwire.ErrRequestMalformed},
		{"invite listing without the trailing slash", "/" + testOrg + "/invites", http.StatusNotFound, umwire.ResultError},
		{"product listing without the trailing slash", "/" + testOrg + "/products", http.StatusNotFound, umwire.ResultError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.do("GET", tt.path, "")
			var eb umwire.ErrorBody
			if err := json.Unmarshal(r.body, &eb); err != nil || r.status != tt.status || eb.Result != tt.result || eb.Message == "" {
				t.Fatalf("GET %s: %d %s, want %d with result %s and a message", tt.path, r.status, r.body, tt.status, tt.result)
			}
			if tt.status == http.StatusNotFound && r.header.Get(umwire.HeaderCanonical) == "" {
				t.Errorf("GET %s: 404 without %s", tt.path, umwire.HeaderCanonical)
			}
		})
	}
}

// TestInviteEndpointsAnswerWrongMethodsWithInviteErrors checks that a
// method an invite endpoint does not serve gets 405 with the invite error
// body {status, statusMessage}.
func TestInviteEndpointsAnswerWrongMethodsWithInviteErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	for _, path := range []string{
		"/" + testOrg + "/invites/",
		"/organizations/" + testOrg + "/invites/frank@gmail.com",
		"/" + testOrg + "/invites/frank@gmail.com",
	} {
		r := f.do("PUT", path, "")
		var fields map[string]string
		if err := json.Unmarshal(r.body, &fields); err != nil || r.status != http.StatusMethodNotAllowed ||
			len(fields) != 2 || fields["status"] != umwire.InviteBadRequest || fields["statusMessage"] == "" {
			t.Errorf("PUT %s: %d %s, want 405 with an invite error body", path, r.status, r.body)
		}
	}
}
