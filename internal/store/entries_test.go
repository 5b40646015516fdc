package store

import (
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/reconcile"
)

func TestEntriesMarkFailuresTestOnlyAndWhy(t *testing.T) {
	first := "Ann"
	changes := []reconcile.Change{
		{Kind: reconcile.KindCreate, User: reconcile.User{Type: reconcile.FederatedID, Email: "ann@example.com"}, Add: []string{"Design"}},
		{Kind: reconcile.KindUpdate, User: reconcile.User{Type: reconcile.FederatedID, Email: "Bob@example.com"}, Set: &reconcile.Attrs{FirstName: &first}, Remove: []string{"Sales"}},
		{Kind: reconcile.KindDelete, User: reconcile.User{Type: reconcile.EnterpriseID, Email: "old@example.com"}},
	}
	failures := []reconcile.Failure{{Target: "BOB@example.com", Code: "error.group.not_found", Message: "no group Sales"}}
	a := Applied{Run: "r", Org: "emea", Time: time.Now(), Unmatched: map[string]bool{"old@example.com": true},
		Rules: map[string]string{"design": `mapping[1] (directory "design")`}}
	got := a.Entries(changes, failures)
	want := []struct{ steps, result, reason string }{
		{"create federatedID,add Design", ResultApplied, `the sources; Design: mapping[1] (directory "design")`},
		{"update firstname,remove Sales", ResultFailed, "no longer give these groups; Sales: a pattern rule"},
		{"removeFromOrg deleteAccount", ResultApplied, "policy.unmatchedUsers"},
	}
	for i, w := range want {
		e := got[i]
		if strings.Join(e.Steps, ",") != w.steps || e.Result != w.result || !strings.Contains(e.Reason, w.reason) {
			t.Errorf("entry %d: %+v, want steps %q, result %s, reason with %q", i, e, w.steps, w.result, w.reason)
		}
		if strings.Contains(strings.Join(e.Steps, ","), "Ann") {
			t.Errorf("entry %d records an attribute's value: %v", i, e.Steps)
		}
	}
	if got[1].Code != "error.group.not_found" {
		t.Errorf("failed entry code %q", got[1].Code)
	}
	a.Unsent = []string{"ann@example.com", "OLD@example.com"}
	if e := a.Entries(changes, failures); e[0].Result != ResultNotSent || e[1].Result != ResultFailed || e[2].Result != ResultNotSent {
		t.Errorf("a stopped run's entries: %s, %s, %s; want not-sent, failed, not-sent", e[0].Result, e[1].Result, e[2].Result)
	}
	a.Unsent = nil
	a.TestOnly = true
	if e := a.Entries(changes[:1], nil); e[0].Result != ResultTestOnly {
		t.Errorf("test-only entry result %q", e[0].Result)
	}
}
