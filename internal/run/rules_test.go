package run

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/mapping"
)

// user is a desired user with groups.
func user(email string, groups ...string) reconcile.User {
	return reconcile.User{Email: email, Type: reconcile.FederatedID, Groups: groups}
}

// emails lists the users' emails in order.
func emails(users []reconcile.User) string {
	out := make([]string, len(users))
	for i := range users {
		out[i] = users[i].Email
	}
	return strings.Join(out, ",")
}

// TestScopeOf: the run's scope leaves out the users a filter left out
// (unless another source keeps them), the unmapped users with
// excludeUnmappedUsers (a held group maps a user), and limits the run to
// the scope groups' members or a users file.
func TestScopeOf(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	list := filepath.Join(dir, "users.txt")
	if err := os.WriteFile(list, []byte("a@x\nnot an email\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		scope     config.Scope
		sources   Sources
		wantUsers string // left in the run
		wantOut   string // Scope.Out
		keep      bool   // Scope.KeepUnmatched
		only      bool   // Scope.Only set
		problems  int
		err       string
	}{
		{name: "whole run", sources: Sources{Users: reconcile.UsersOf([]reconcile.User{user("a@x", "G"), user("b@x")}...)},
			wantUsers: "a@x,b@x"},
		{name: "filtered out unless another source keeps the user",
			sources:   Sources{Users: reconcile.UsersOf([]reconcile.User{user("a@x", "G")}...), Filtered: []reconcile.User{user("a@x"), user("c@x")}},
			wantUsers: "a@x", wantOut: "c@x"},
		{name: "unmapped users excluded; a held group maps", scope: config.Scope{ExcludeUnmappedUsers: true},
			sources:   Sources{Users: reconcile.UsersOf([]reconcile.User{user("a@x", "G"), user("b@x"), user("h@x")}...), Held: map[string][]string{"h@x": {"G"}}},
			wantUsers: "a@x,h@x", wantOut: "b@x"},
		{name: "scope groups keep the unmatched users", scope: config.Scope{Groups: []string{"eng"}},
			sources: Sources{Users: reconcile.UsersOf([]reconcile.User{user("a@x", "G")}...)}, wantUsers: "a@x", keep: true},
		{name: "scope groups with no member fail", scope: config.Scope{Groups: []string{"engg"}},
			sources: Sources{}, err: `scope: no source user is in the scope groups ["engg"]: check their names`},
		{name: "users file", scope: config.Scope{UsersFile: list},
			sources: Sources{Users: reconcile.UsersOf([]reconcile.User{user("a@x", "G")}...)}, wantUsers: "a@x", only: true, problems: 1},
		{name: "users file gone", scope: config.Scope{UsersFile: filepath.Join(dir, "gone.txt")},
			sources: Sources{}, err: "scope.usersFile: cannot read the users file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.sources
			s, err := scopeOf(tt.scope, &d, zap.NewNop())
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := emails(d.Users.List()); got != tt.wantUsers {
				t.Errorf("users in the run %q, want %q", got, tt.wantUsers)
			}
			if got := emails(s.Out); got != tt.wantOut {
				t.Errorf("out of scope %q, want %q", got, tt.wantOut)
			}
			if s.KeepUnmatched != tt.keep || (s.Only != nil) != tt.only || len(d.Problems) != tt.problems {
				t.Errorf("scope %+v with %d problems, want keep %v, only %v, %d problems", s, len(d.Problems), tt.keep, tt.only, tt.problems)
			}
		})
	}
}

// TestOrgScope: with excludeUnmappedUsers, unmapped is per organization:
// a user with no group of this organization (or one it does not take) is
// out of scope here, whatever it has elsewhere.
func TestOrgScope(t *testing.T) {
	t.Parallel()
	part := Part{Users: reconcile.UsersOf(user("a@x", "G"), user("b@x")), Others: reconcile.UsersOf(user("c@x"))}
	run := reconcile.Scope{Out: []reconcile.User{user("f@x")}}
	tests := []struct {
		name             string
		scope            config.Scope
		wantIn, wantOut  string
		wantOthersLeftIn bool
	}{
		{"whole run", config.Scope{}, "a@x,b@x", "f@x", true},
		{"unmapped excluded", config.Scope{ExcludeUnmappedUsers: true}, "a@x", "f@x,b@x,c@x", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, s := orgScope(tt.scope, part, run)
			if emails(in.Users.List()) != tt.wantIn || emails(s.Out) != tt.wantOut || (in.Others.Len() > 0) != tt.wantOthersLeftIn {
				t.Errorf("in %q (others %v), out %q; want %q, %q", emails(in.Users.List()), in.Others.List(), emails(s.Out), tt.wantIn, tt.wantOut)
			}
			if emails(run.Out) != "f@x" {
				t.Errorf("the run's scope changed: %q", emails(run.Out))
			}
		})
	}
}

// TestReportFile: the top-level policy's report file is the primary's;
// another organization sharing it writes beside it with its name; an
// organization's own policy names its own file.
func TestReportFile(t *testing.T) {
	t.Parallel()
	cfg := &config.Config{Policy: config.Policy{ReportFile: "/r/unmatched.csv"}, Targets: []config.NamedTarget{
		{Name: "main"}, {Name: "emea"}, {Name: "apac", Policy: &config.Policy{ReportFile: "/r/apac.csv"}}, {Name: "us", Policy: &config.Policy{}},
	}}
	tests := []struct{ org, want string }{
		{"main", "/r/unmatched.csv"},
		{"emea", "/r/unmatched-emea.csv"},
		{"apac", "/r/apac.csv"},
		{"us", ""},
	}
	for _, tt := range tests {
		i := slices.IndexFunc(cfg.Targets, func(t config.NamedTarget) bool { return t.Name == tt.org })
		if got := reportPath(cfg, &cfg.Targets[i]); got != tt.want {
			t.Errorf("%s: report file %q, want %q", tt.org, got, tt.want)
		}
	}
	noExt := &config.Config{Policy: config.Policy{ReportFile: "unmatched"}, Targets: []config.NamedTarget{{Name: "main"}, {Name: "emea"}}}
	if got := reportPath(noExt, &noExt.Targets[1]); got != "unmatched-emea" {
		t.Errorf("without an extension: %q", got)
	}
}

// TestRunScopeConfig: the command line's scope overrides are checked as
// the configuration's values are, and leave what they do not set.
func TestRunScopeConfig(t *testing.T) {
	t.Parallel()
	base := config.Scope{Groups: []string{"sales"}, UsersFile: "x.txt"}
	tests := []struct {
		name string
		ov   Overrides
		want config.Scope
		err  string
	}{
		{"nothing", Overrides{}, base, ""},
		{"exclude unmapped", Overrides{ExcludeUnmappedUsers: true}, config.Scope{ExcludeUnmappedUsers: true, Groups: []string{"sales"}, UsersFile: "x.txt"}, ""},
		{"groups trimmed", Overrides{ScopeGroups: []string{" eng", "", "design "}}, config.Scope{Groups: []string{"eng", "design"}, UsersFile: "x.txt"}, ""},
		{"groups blank", Overrides{ScopeGroups: []string{" ", ""}}, config.Scope{}, `--scope-groups " ," names no group`},
		{"users file unreadable", Overrides{UsersFile: filepath.Join(t.TempDir(), "gone")}, config.Scope{}, "--users-file: cannot read the users file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := runScopeConfig(base, tt.ov)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || got.ExcludeUnmappedUsers != tt.want.ExcludeUnmappedUsers || !slices.Equal(got.Groups, tt.want.Groups) || got.UsersFile != tt.want.UsersFile {
				t.Errorf("scope %+v (%v), want %+v", got, err, tt.want)
			}
			if !slices.Equal(base.Groups, []string{"sales"}) {
				t.Errorf("the configuration's scope changed: %v", base.Groups)
			}
		})
	}
}

// TestHoldAccepted: a mapped directory group one source did not find but
// another names holds its target groups for the users of the source that
// missed it (a renamed group must not cost its members their access), and
// for no one else.
func TestHoldAccepted(t *testing.T) {
	t.Parallel()
	m, err := mapping.New([]mapping.Rule{{Directory: "contractors", Targets: []string{"Contractors", "emea::Contractors"}}})
	if err != nil {
		t.Fatal(err)
	}
	results := []source.NamedResult{
		{Name: "ldap", Result: &source.Result{Users: reconcile.UsersOf([]reconcile.User{user("a@x"), user("b@x", "Design")}...)}},
		{Name: "csv", Result: &source.Result{Users: reconcile.UsersOf([]reconcile.User{user("c@x", "Contractors")}...)}},
	}
	tests := []struct {
		name     string
		accepted []source.AcceptedGroup
		want     map[string][]string
	}{
		{"nothing accepted", nil, nil},
		{"missed by ldap", []source.AcceptedGroup{{Result: 0, MissingGroup: source.MissingGroup{Group: "contractors", Where: "under ou=groups"}}},
			map[string][]string{"a@x": {"Contractors", "emea::Contractors"}, "b@x": {"Contractors", "emea::Contractors"}}},
	}
	j := &Job{log: zap.NewNop()}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := j.holdAccepted(tt.accepted, results, m)
			if len(got) != len(tt.want) {
				t.Fatalf("held %v, want %v", got, tt.want)
			}
			for k, groups := range tt.want {
				if !slices.Equal(got[k], groups) {
					t.Errorf("held for %s: %v, want %v", k, got[k], groups)
				}
			}
		})
	}
}

// TestExplainPlanned: what plan --explain finds a plan does for the user in
// each organization of several: its changes, unmatched, nothing, an
// organization it has no group of (excluded, or not taken), one that could
// not be planned.
func TestExplainPlanned(t *testing.T) {
	t.Parallel()
	cfg := exampleConfig(t, "multiorg") // emea takes mapped members only
	main, emea := &cfg.Targets[0], &cfg.Targets[1]
	dave := user("dave@example.com", "Design")
	sources := &Sources{Users: reconcile.UsersOf([]reconcile.User{dave}...), Traces: []diag.Trace{{Source: "sources[0]"}}}
	create := reconcile.Plan{Changes: []reconcile.Change{{Kind: reconcile.KindCreate, User: dave}}}
	unmatched := reconcile.Plan{Unmatched: reconcile.UsersOf(dave)}
	tests := []struct {
		name    string
		scope   config.Scope
		plan    *OrgPlan
		sources *Sources
		want    ExplainOrg
	}{
		{"a change", config.Scope{}, &OrgPlan{Org: main, Plan: &create}, sources, ExplainOrg{Org: "main", Changes: create.Changes}},
		{"unmatched", config.Scope{}, &OrgPlan{Org: main, Plan: &unmatched}, &Sources{}, ExplainOrg{Org: "main", Unmatched: "policy.unmatchedUsers"}},
		{"unknown everywhere", config.Scope{}, &OrgPlan{Org: main, Plan: &reconcile.Plan{}}, &Sources{}, ExplainOrg{Org: "main", Unknown: true}},
		{"no group of a mapped-only organization", config.Scope{}, &OrgPlan{Org: emea, Plan: &reconcile.Plan{}}, sources,
			ExplainOrg{Org: "emea", NoGroup: NoGroupAdded}},
		{"no group, unmapped users excluded", config.Scope{ExcludeUnmappedUsers: true}, &OrgPlan{Org: emea, Plan: &reconcile.Plan{}}, sources,
			ExplainOrg{Org: "emea", NoGroup: NoGroupOut}},
		{"organization failed", config.Scope{}, &OrgPlan{Org: emea, Err: errors.New("boom")}, sources, ExplainOrg{Org: "emea", Failed: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &Job{settings: settingsOf(cfg), scope: tt.scope, explain: "DAVE@example.com"}
			if got := j.explainOrg(tt.plan, tt.sources); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
