package gate

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/orgsync/orgsync/target/umwire"
)

// BenchmarkAuthorizedRequest measures what the gate adds to one API
// request: token verification, the checks, both rate-limit windows (with
// limits far above the load), the fault draw and the statistics.
func BenchmarkAuthorizedRequest(b *testing.B) {
	in := testKeys()[0].in
	next := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	g, err := New(Config{OrgID: testOrg, Integrations: []Integration{in}, Limits: Limits{Read: 1 << 30, App: 1 << 30}}, next)
	if err != nil {
		b.Fatal(err)
	}
	tok, err := g.tokens.issue(in.ClientID, testOrg, g.clock())
	if err != nil {
		b.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodGet, usersPath, nil)
	r.Header.Set("Authorization", "Bearer "+tok)
	r.Header.Set(umwire.HeaderAPIKey, in.ClientID)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		g.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d", w.Code)
		}
	}
}
