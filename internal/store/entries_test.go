package store

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/reconcile"
)

func TestEntriesMarkFailuresTestOnlyAndWhy(t *testing.T) {
	t.Parallel()
	first := "Ann"
	changes := []reconcile.Change{
		{Kind: reconcile.KindCreate, User: reconcile.User{Type: reconcile.FederatedID, Email: "ann@example.com"}, Add: []string{"Design"}},
		{Kind: reconcile.KindUpdate, User: reconcile.User{Type: reconcile.FederatedID, Email: "Bob@example.com"}, Set: &reconcile.Attrs{FirstName: &first}, Remove: []string{"Sales"}},
		{Kind: reconcile.KindDelete, User: reconcile.User{Type: reconcile.EnterpriseID, Email: "old@example.com"}},
	}
	failures := []reconcile.Failure{{Target: "BOB@example.com", Code: "error.group.not_found", Message: "no group Sales"}}
	a := Applied{Run: "r", Org: "emea", Time: time.Now(), Unmatched: map[string]bool{"old@example.com": true},
		Rules: map[string]string{"design": `mapping[1] (directory "design")`}, Settings: settings}
	got := a.Entries(changes, failures)
	want := []struct{ steps, result, reason string }{
		{"create federatedID,add Design", ResultApplied, `the sources; Design: mapping[1] (directory "design")`},
		{"update firstname,remove Sales", ResultFailed, "no longer give these groups; Sales: a pattern rule or the managed groups"},
		{"removeFromOrg deleteAccount", ResultApplied, "unmatched (in the organization, in no source): the unmatched users' setting"},
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
	unanswered := reconcile.Failure{Target: "ann@example.com", Code: "request.unanswered", Message: "sent, no answer", Unknown: true}
	a.Unsent = []string{"OLD@example.com"}
	if e := a.Entries(changes, append(failures, unanswered)); e[0].Result != ResultUnknown || e[0].Message != "sent, no answer" || e[0].Code != "" ||
		e[2].Result != ResultNotSent {
		t.Errorf("a request sent without an answer before the run stopped: %+v; %s; want unknown, not-sent", e[0], e[2].Result)
	}
	a.Unsent = nil
	a.TestOnly = true
	if e := a.Entries(changes[:1], nil); e[0].Result != ResultTestOnly {
		t.Errorf("test-only entry result %q", e[0].Result)
	}
}

// settings are the caller's words for the settings, as a test gives them.
var settings = Settings{Unmatched: "the unmatched users' setting", CreateGroups: "group creation",
	RevokeInvites: "invite revocation", ManagedGroups: "the managed groups"}

// Every kind of the change kinds' table is recorded with the steps the
// table gives it: its own (a group's creation, a user's creation or
// removal, an invite call), then its update and memberships; none is left
// without, as a switch over the kinds would leave a new one.
func TestEveryKindRecordedWithItsSteps(t *testing.T) {
	t.Parallel()
	first := "Ann"
	want := map[reconcile.Kind]string{
		reconcile.KindCreateGroup:  "createUserGroup Design",
		reconcile.KindCreate:       "create federatedID; update firstname; add Design; remove Sales",
		reconcile.KindUpdate:       "update firstname; add Design; remove Sales",
		reconcile.KindResendInvite: "create federatedID; update firstname; add Design; remove Sales",
		reconcile.KindInviteGroups: "create federatedID; update firstname; add Design; remove Sales",
		reconcile.KindRemove:       "update firstname; add Design; remove Sales; removeFromOrg",
		reconcile.KindDelete:       "update firstname; add Design; remove Sales; removeFromOrg deleteAccount",
		reconcile.KindRevokeInvite: "revoke-invite; update firstname; add Design; remove Sales",
	}
	a := Applied{Run: "r", Time: time.Now(), Settings: settings}
	for _, k := range reconcile.Kinds() {
		c := reconcile.Change{Kind: k, User: reconcile.User{Type: reconcile.FederatedID, Email: "ann@example.com"}, Group: "Design",
			Set: &reconcile.Attrs{FirstName: &first}, Add: []string{"Design"}, Remove: []string{"Sales"}}
		if k == reconcile.KindCreateGroup {
			c = reconcile.Change{Kind: k, Group: "Design"}
		}
		e := a.Entries([]reconcile.Change{c}, nil)[0]
		w, ok := want[k]
		if !ok {
			t.Errorf("kind %s is new: say here how its history entry reads (%q)", k, strings.Join(e.Steps, "; "))
			continue
		}
		if got := strings.Join(e.Steps, "; "); got != w || e.Kind != string(k) {
			t.Errorf("%s recorded as %s %q, want %q", k, e.Kind, got, w)
		}
	}
}

// The state store speaks its own terms: no string of it names a key of
// the configuration file; the caller gives the settings' names (Settings)
// and the mapping rules' (Applied.Rules).
func TestStoreNamesNoConfigurationKey(t *testing.T) {
	t.Parallel()
	code := func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", code, 0)
	if err != nil || pkgs["store"] == nil {
		t.Fatal(err, pkgs)
	}
	ast.Inspect(pkgs["store"], func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if ok && lit.Kind == token.STRING {
			for _, key := range []string{"policy.", "targets[", "mapping[", "safety.", "state.", "schedule."} {
				if strings.Contains(lit.Value, key) {
					t.Errorf("%s names the configuration's %s…", lit.Value, key)
				}
			}
		}
		return true
	})
}
