package gate

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/target/umwire"
)

// FuzzAuthorize sends arbitrary paths, Authorization headers and API keys
// through the gate: it never panics, answers only with the statuses of the
// specification, keeps 401 and 403 bodies empty, and lets a request reach
// the API handler only when the token, the key and the organization are
// right. "TOKEN" in the Authorization header stands for a valid token.
func FuzzAuthorize(f *testing.F) {
	in := testKeys()[0].in
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	g, err := New(Config{OrgID: testOrg, Integrations: []Integration{in}}, next)
	if err != nil {
		f.Fatal(err)
	}
	tok, err := g.tokens.issue(in.ClientID, testOrg, g.clock())
	if err != nil {
		f.Fatal(err)
	}
	f.Add("users/"+testOrg+"/0", "Bearer TOKEN", in.ClientID)
	f.Add("action/x@VendorOrg", "Bearer TOKEN", in.ClientID)
	f.Add("organizations/"+testOrg+"/users/a@b.c", "Bearer TOKEN", "")
	f.Add("/invites//", "Bearer ey", "k")
	f.Add(otherOrg+"/users", "bearer  TOKEN ", in.ClientID)
	f.Fuzz(func(t *testing.T, path, auth, apiKey string) {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.URL = &url.URL{Path: umwire.BasePath + "/" + path}
		r.Header.Set("Authorization", strings.ReplaceAll(auth, "TOKEN", tok))
		r.Header.Set(umwire.HeaderAPIKey, apiKey)
		w := httptest.NewRecorder()
		g.ServeHTTP(w, r)
		switch w.Code {
		case http.StatusTeapot, http.StatusBadRequest:
		case http.StatusUnauthorized, http.StatusForbidden:
			if w.Body.Len() != 0 {
				t.Errorf("%d with body %q", w.Code, w.Body)
			}
		default:
			t.Errorf("status %d for path %q", w.Code, path)
		}
		if w.Code == http.StatusTeapot && apiKey != in.ClientID {
			t.Errorf("API key %q reached the API handler", apiKey)
		}
	})
}
