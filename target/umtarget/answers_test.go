package umtarget

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umwire"
)

// dropFirstAction serves sim, except that the first action request is
// applied and its connection then dropped without an answer (the service
// did the work, the client cannot know).
func dropFirstAction(sim http.Handler) http.Handler {
	var dropped atomic.Bool
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/action/") && dropped.CompareAndSwap(false, true) {
			sim.ServeHTTP(discard{}, r)
			panic(http.ErrAbortHandler)
		}
		sim.ServeHTTP(w, r)
	})
}

type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}

// TestRenameRetriedAfterLostAnswer: a request whose answer was lost is
// sent again; an entry that renamed a user (update of the email) finds
// the old email gone on the second attempt. That is the first attempt's
// doing, not a failure: Send reports none when the user now has the new
// email and the entry's groups.
func TestRenameRetriedAfterLostAnswer(t *testing.T) {
	t.Parallel()
	sim := newSim(t, plainOrg(2, func(int) []string { return []string{"G1"} }), umsim.Options{})
	tg := New(simClient(t, dropFirstAction(sim)))
	newEmail := "renamed@example.com"
	old := plainUser(0, "G1")
	req := reconcile.Request{Entries: []reconcile.Entry{
		{User: &old, Steps: []reconcile.Step{
			{Kind: reconcile.StepUpdate, Set: &reconcile.Attrs{Email: &newEmail}},
			{Kind: reconcile.StepAdd, Groups: []string{"G2"}},
		}},
		{User: &reconcile.User{Type: reconcile.EnterpriseID, Email: plainEmail(1)}, Steps: []reconcile.Step{
			{Kind: reconcile.StepAdd, Groups: []string{"G3"}},
		}},
	}}
	failed, err := tg.Send(context.Background(), req, false)
	if err != nil || len(failed) != 0 {
		t.Fatalf("failures %+v, error %v; want none", failed, err)
	}
	got, err := tg.c.GetUser(context.Background(), newEmail, "")
	if err != nil || !strings.EqualFold(strings.Join(got.Groups, ","), "G1,G2") {
		t.Errorf("renamed user %+v, %v: want it in G1 and G2", got, err)
	}
}

// TestRenameOfAbsentUserFails: the check above does not hide a real
// failure: renaming a user who does not exist to an email nobody has is
// reported.
func TestRenameOfAbsentUserFails(t *testing.T) {
	t.Parallel()
	sim := newSim(t, plainOrg(1, func(int) []string { return nil }), umsim.Options{})
	tg := New(simClient(t, sim))
	newEmail := "nobody-new@example.com"
	ghost := plainUser(7)
	req := reconcile.Request{Entries: []reconcile.Entry{{User: &ghost, Steps: []reconcile.Step{
		{Kind: reconcile.StepUpdate, Set: &reconcile.Attrs{Email: &newEmail}}}}}}
	failed, err := tg.Send(context.Background(), req, false)
	if err != nil || len(failed) != 1 || failed[0].Code != "error.user.nonexistent" {
		t.Fatalf("failures %+v, error %v; want the entry failed with error.user.nonexistent", failed, err)
	}
}

// answerOf serves r through h and returns the status and the JSON body
// of its answer.
func answerOf(h http.Handler, r *http.Request) (int, map[string]any) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		panic(err)
	}
	return rec.Code, body
}

// rewriteAnswers serves h, passing the JSON body of the answers to the
// requests whose path holds part through change; the status is kept, the
// headers (the page headers too) are not.
func rewriteAnswers(h http.Handler, part string, change func(body map[string]any)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.URL.Path, part) {
			h.ServeHTTP(w, r)
			return
		}
		status, body := answerOf(h, r)
		change(body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(body)
	})
}

// reshapeActionAnswer serves sim, answering action requests as another
// reading of the specification may: status 207 for a partial result,
// Content-Type with a charset, a gzip-encoded body (the client asked for
// it), and an unknown field.
func reshapeActionAnswer(sim http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.URL.Path, "/action/") {
			sim.ServeHTTP(w, r)
			return
		}
		status, body := answerOf(sim, r)
		body["undocumented"] = map[string]any{"x": 1}
		if body["result"] == "partial" {
			status = http.StatusMultiStatus
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(status)
		zw := gzip.NewWriter(w)
		_ = json.NewEncoder(zw).Encode(body)
		_ = zw.Close()
	})
}

// TestActionAnswerShapes: a partial result answered 207, gzip-encoded,
// with a charset and an unknown field, is read like the plain 200: the
// failing entry (the second: its group does not exist) is reported, the
// other is done.
func TestActionAnswerShapes(t *testing.T) {
	t.Parallel()
	sim := newSim(t, plainOrg(2, func(int) []string { return nil }), umsim.Options{})
	tg := New(simClient(t, reshapeActionAnswer(sim)))
	u0, u1 := plainUser(0), plainUser(1)
	req := reconcile.Request{Entries: []reconcile.Entry{
		{User: &u0, Steps: []reconcile.Step{{Kind: reconcile.StepAdd, Groups: []string{"G1"}}}},
		{User: &u1, Steps: []reconcile.Step{{Kind: reconcile.StepAdd, Groups: []string{"No Such Group"}}}},
	}}
	failed, err := tg.Send(context.Background(), req, false)
	if err != nil || len(failed) != 1 || failed[0].Index != 1 || failed[0].Code != "error.group.not_found" {
		t.Fatalf("failures %+v, error %v; want entry 1 failed with error.group.not_found", failed, err)
	}
	if got, err := tg.c.GetUser(context.Background(), plainEmail(0), ""); err != nil || !slices.Equal(got.Groups, []string{"G1"}) {
		t.Errorf("user 0 %+v, %v: want it in G1", got, err)
	}
}

// TestUsernameRenameRetriedAfterLostAnswer: the same for a Federated ID
// named by its username, whose username the entry changes.
func TestUsernameRenameRetriedAfterLostAnswer(t *testing.T) {
	t.Parallel()
	st := randomOrg(nil, 0)
	st.Users = []umsim.User{{Type: umwire.TypeFederatedID, Username: "fuser", Domain: "fed.example.net",
		Email: "fuser@example.com", FirstName: "F", LastName: "U", Country: "US", Groups: []string{"G1"}}}
	sim := newSim(t, st, umsim.Options{})
	tg := New(simClient(t, dropFirstAction(sim)))
	newName := "fuser2"
	u := reconcile.User{Type: reconcile.FederatedID, Username: "fuser", Domain: "fed.example.net", Email: "fuser@example.com"}
	req := reconcile.Request{Entries: []reconcile.Entry{{User: &u, Steps: []reconcile.Step{
		{Kind: reconcile.StepUpdate, Set: &reconcile.Attrs{Username: &newName}},
		{Kind: reconcile.StepRemove, Groups: []string{"G1"}},
	}}}}
	failed, err := tg.Send(context.Background(), req, false)
	if err != nil || len(failed) != 0 {
		t.Fatalf("failures %+v, error %v; want none", failed, err)
	}
	got, err := tg.c.GetUser(context.Background(), newName, "fed.example.net")
	if err != nil || len(got.Groups) != 0 {
		t.Errorf("renamed user %+v, %v: want it found, in no group", got, err)
	}
}

// TestFailuresNotNamed: an answer that says entries failed (result
// partial, notCompleted 1) but names none in errors cannot say which
// entries were done: the request is reported failed as a whole, never
// done.
func TestFailuresNotNamed(t *testing.T) {
	t.Parallel()
	sim := newSim(t, plainOrg(2, func(int) []string { return nil }), umsim.Options{})
	h := rewriteAnswers(sim, "/action/", func(body map[string]any) { delete(body, "errors") })
	tg := New(simClient(t, h))
	u0, u1 := plainUser(0), plainUser(1)
	req := reconcile.Request{Entries: []reconcile.Entry{
		{User: &u0, Steps: []reconcile.Step{{Kind: reconcile.StepAdd, Groups: []string{"G1"}}}},
		{User: &u1, Steps: []reconcile.Step{{Kind: reconcile.StepAdd, Groups: []string{"No Such Group"}}}},
	}}
	failed, err := tg.Send(context.Background(), req, false)
	if err == nil || !strings.Contains(err.Error(), "names 0") {
		t.Fatalf("failures %+v, error %v; want the request failed: 1 entry not completed, none named", failed, err)
	}
}
