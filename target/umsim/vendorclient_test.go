package umsim

import (
	"net/http"
	"testing"
)

// Booleans in the query are accepted in any letter case on every endpoint
// that takes one (the vendor's Python client sends "True"), while values
// the specification does not define stay refused.
func TestBooleanQueryParametersAnyCase(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	paths := []string{
		"/users/" + testOrg + "/0?directOnly=",
		"/users/" + testOrg + "/0/Designers?excludeGroups=",
		"/users/" + testOrg + "/0/Designers?directOnly=",
		"/" + testOrg + "/invites/?includeExpired=",
		"/organizations/" + testOrg + "/invites/frank@gmail.com?includeExpired=",
	}
	for _, p := range paths {
		for _, v := range []string{"true", "True", "TRUE", "false", "False", "fAlSe"} {
			if r := f.do("GET", p+v, ""); r.status != http.StatusOK && r.status != http.StatusNotFound {
				t.Errorf("GET %s%s: %d %s", p, v, r.status, r.body)
			}
		}
		for _, v := range []string{"yes", "1", "t", "truex"} {
			if r := f.do("GET", p+v, ""); r.status != http.StatusBadRequest {
				t.Errorf("GET %s%s: %d, want 400", p, v, r.status)
			}
		}
	}
	body := `[{"user":"alice@example.com","do":[{"add":{"group":["Designers"]}}]}]`
	for _, v := range []string{"True", "TRUE"} {
		if resp := f.action(body, "?testOnly="+v); resp.CompletedInTestMode != 1 || resp.Completed != 0 {
			t.Errorf("testOnly=%s: %+v, want a test-mode run", v, resp)
		}
	}
	if r := f.do("POST", "/action/"+testOrg+"?testOnly=on", body); r.status != http.StatusBadRequest {
		t.Errorf("testOnly=on: %d, want 400", r.status)
	}
	// Where the specification spells the values out, they are matched exactly.
	if r := f.do("GET", "/"+testOrg+"/invites/?sortColumn=email", ""); r.status != http.StatusBadRequest {
		t.Errorf("sortColumn=email: %d, want 400", r.status)
	}
}
