package umtarget

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umwire"
)

// actionRecorder serves h and keeps the entries of every action request.
type actionRecorder struct {
	h       http.Handler
	mu      sync.Mutex
	entries []umwire.Entry
}

func (a *actionRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.Contains(r.URL.Path, "/action/") {
		body, _ := io.ReadAll(r.Body)
		var es []umwire.Entry
		_ = json.Unmarshal(body, &es)
		a.mu.Lock()
		a.entries = append(a.entries, es...)
		a.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	a.h.ServeHTTP(w, r)
}

// TestEmailCaseOnTheWire: the specification calls the email "a
// case-sensitive unique identifier" (rule 7) while the lookup is
// case-insensitive; the simulator finds action roots in any case, a
// service that reads rule 7 strictly would not. Sources that spell the
// emails in another case must therefore give requests that name every
// existing user exactly as the service stores the email, and plan no
// change of case.
func TestEmailCaseOnTheWire(t *testing.T) {
	t.Parallel()
	st := plainOrg(0, nil)
	st.Users = []umsim.User{
		{Type: umwire.TypeEnterpriseID, Email: "Mixed.Case@example.com", FirstName: "M", LastName: "C", Country: "US", Groups: []string{"G1"}},
		{Type: umwire.TypeEnterpriseID, Email: "Other.Person@Example.com", FirstName: "O", LastName: "P", Country: "US", Groups: []string{"G2"}},
	}
	rec := &actionRecorder{h: newSim(t, st, umsim.Options{})}
	e := &env{target: New(simClient(t, rec))}
	pol := &reconcile.Policy{Managed: []string{"G1", "G2"}, UserGroups: []string{"G1", "G2"},
		Update: reconcile.Attributes{FirstName: true, LastName: true, Email: true}}
	want := []reconcile.User{
		{Type: reconcile.EnterpriseID, Email: "mixed.case@EXAMPLE.com", FirstName: "M", LastName: "C", Country: "US", Groups: []string{"g2"}},
		{Type: reconcile.EnterpriseID, Email: "other.person@example.com", FirstName: "Olga", LastName: "P", Country: "US"},
	}
	if _, err := e.run(t, want, pol); err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{"Mixed.Case@example.com": true, "Other.Person@Example.com": true}
	if len(rec.entries) == 0 {
		t.Fatal("no entry sent")
	}
	for _, en := range rec.entries {
		var names []string
		if en.User != "" {
			names = append(names, en.User)
		}
		for _, s := range en.Do {
			if s.Update != nil && s.Update.Email != nil {
				t.Errorf("entry %+v changes the email's case", en)
			}
			if en.UserGroup != "" && s.Add != nil {
				names = append(names, s.Add.Users...)
			}
			if en.UserGroup != "" && s.Remove != nil {
				names = append(names, s.Remove.Users...)
			}
		}
		for _, n := range names {
			if !stored[n] {
				t.Errorf("entry %+v names %q, not the stored spelling", en, n)
			}
		}
	}
	if p := e.plan(t, want, pol); len(p.Changes) != 0 {
		t.Errorf("after the sync the plan still holds %v", p.Changes)
	}
}
