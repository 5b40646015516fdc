package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/target/umsim"
)

// TestScopedRunsNeverRemoveOutOfScopeUsers syncs the CSV example with the
// policy that removes every user in no source, under each kind of scope:
// the users outside the scope keep their place and their groups (bob has a
// group too many, mallory is in no source), the others are synced.
func TestScopedRunsNeverRemoveOutOfScopeUsers(t *testing.T) {
	t.Parallel()
	destructive := []string{"unmatchedUsers: remove-groups", "unmatchedUsers: remove", "maxRemovals: 50%", "maxRemovals: 0"}
	tests := []struct {
		name    string
		replace []string // configuration replacements (after the destructive ones)
		args    []string
		removed []string // users removed from the organization
		kept    []string // users left exactly as they were
		synced  []string // users created or updated
	}{
		{"filter expression", []string{"      defaultType: federatedID\n", "      defaultType: federatedID\n    filter: 'user.email != \"bob@example.com\"'\n"},
			nil, []string{"mallory@example.com"}, []string{"bob@example.com"}, []string{"dave@example.com", "carol@example.com"}},
		{"scope groups from the command line", nil, []string{"--scope-groups", "design"},
			nil, []string{"bob@example.com", "mallory@example.com", "alice@example.com"}, []string{"dave@example.com", "carol@example.com"}},
		{"scope groups in the configuration", []string{"safety:", "scope:\n  groups: [Design]\nsafety:"}, nil,
			nil, []string{"bob@example.com", "mallory@example.com"}, []string{"dave@example.com", "carol@example.com"}},
		{"users file", nil, []string{"--users-file", "LIST"},
			[]string{"mallory@example.com"}, []string{"bob@example.com", "carol@example.com"}, []string{"dave@example.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := exampleDir(t)
			s := startSim(t, dir, umsim.Options{})
			before := snapshotGroups(s)
			cfg := configFor(t, dir, "csv", s.url, append(destructive, tt.replace...)...)
			list := filepath.Join(dir, "act-on.csv")
			if err := os.WriteFile(list, []byte("email\nMallory@example.com\ndave@example.com\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"sync", "--config", cfg}, tt.args...)
			for i, a := range args {
				if a == "LIST" {
					args[i] = list
				}
			}
			r := runBinary(t, nil, args...)
			if r.code != exitOK {
				t.Fatalf("sync: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			after := snapshotGroups(s)
			for _, u := range tt.removed {
				if _, found := after[u]; found {
					t.Errorf("%s is still in the organization", u)
				}
			}
			for _, u := range tt.kept {
				if strings.Join(after[u], ",") != strings.Join(before[u], ",") {
					t.Errorf("out-of-scope %s changed: %v -> %v\n%s", u, before[u], after[u], r.stdout)
				}
			}
			for _, u := range tt.synced {
				if !strings.Contains(r.stdout, u) {
					t.Errorf("%s was not synced:\n%s", u, r.stdout)
				}
			}
			if len(tt.kept) > 0 && !strings.Contains(r.stdout, "out of scope") {
				t.Errorf("the plan does not count the users out of scope:\n%s", r.stdout)
			}
		})
	}
}

// snapshotGroups returns each user of the simulator (by lower-case email)
// with its groups.
func snapshotGroups(s interface{ Snapshot() *umsim.State }) map[string][]string {
	out := map[string][]string{}
	for _, u := range s.Snapshot().Users {
		out[strings.ToLower(u.Email)] = u.Groups
	}
	return out
}

// TestExcludeUnmappedUsers: a source user with no managed group is neither
// created nor, when in the organization, removed; users in no source are
// still unmatched.
func TestExcludeUnmappedUsers(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	// frank@example.com, in the file with no group, is not in the organization.
	appendFile(t, filepath.Join(dir, "csv", "users.csv"), "Mallory,Left,mallory@example.com,US,\n")
	cfg := configFor(t, dir, "csv", s.url, "maxRemovals: 50%", "maxRemovals: 0")
	r := runBinary(t, nil, "sync", "--config", cfg, "--exclude-unmapped-users")
	if r.code != exitOK {
		t.Fatalf("sync: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout, "frank@example.com") || strings.Contains(r.stdout, "mallory@example.com") {
		t.Errorf("an unmapped user is in the plan:\n%s", r.stdout)
	}
	if g, _ := groupsOf(s, "mallory@example.com"); !hasFold(g, "Marketing") {
		t.Errorf("mallory, unmapped in the source, lost her groups: %v", g)
	}
	if _, found := groupsOf(s, "dave@example.com"); !found {
		t.Error("dave, mapped, was not created")
	}
}

// TestPlanExplain shows, for one user, which rule and which expression
// gave each group, and that it catches a bad expression at load with its
// line.
func TestPlanExplain(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	exprs := "      defaultType: federatedID\n    groups: 'user.firstname == \"Dave\" ? [\"Photo Apps\"] : []'\n    set:\n      lastname: 'user.lastname.upperAscii()'\n"
	cfg := configFor(t, dir, "csv", s.url, "      defaultType: federatedID\n", exprs)
	r := runBinary(t, nil, "plan", "--config", cfg, "--explain", "DAVE@example.com")
	if r.code != exitOK {
		t.Fatalf("plan: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"explain DAVE@example.com:",
		`directory group "eng": mapping[0] (directory "eng") gives Engineering, Acrobat Pro`,
		`directory group "design": mapping[1] (directory "design") gives Design`,
		"groups expression gives Photo Apps",
		`set.lastname gives "DOE"`,
		"desired: dave@example.com with groups Engineering, Acrobat Pro, Design, Photo Apps",
		"planned: + create dave@example.com",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("explanation lacks %q:\n%s", want, r.stdout)
		}
	}

	bad := configFor(t, dir, "csv", s.url, "      defaultType: federatedID\n", "      defaultType: federatedID\n    filter: 'user.country'\n")
	r = runBinary(t, nil, "plan", "--config", bad)
	if r.code != exitError || !strings.Contains(r.stderr, "sources[0].filter (line 22): gives string, but bool is needed") {
		t.Errorf("bad filter: exit %d\n%s", r.code, r.stderr)
	}
}

// TestScopedLDAPRun scopes a sync of the OpenLDAP example (a real slapd)
// to the design directory group, with extra attributes and a groups
// expression over them: only carol and dave are synced, and bob (a group
// too many) and mallory (in no source) are left exactly as they were,
// although unmatched users are removed.
func TestScopedLDAPRun(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	before := snapshotGroups(s)
	env, replace := startExampleSlapd(t, dir)
	replace = append(replace, "unmatchedUsers: remove-groups", "unmatchedUsers: remove", "maxRemovals: 50%", "maxRemovals: 0",
		"        defaultType: federatedID\n", "        defaultType: federatedID\n        extraAttributes: [cn]\n",
		"        membership: [member]\n", "        membership: [member]\n    groups: 'user.attributes.cn == \"Dave Doe\" ? [\"Photo Apps\"] : []'\n")
	cfg := configFor(t, dir, "openldap", s.url, replace...)
	r := runBinary(t, env, "sync", "--config", cfg, "--scope-groups", "design")
	if r.code != exitOK {
		t.Fatalf("sync: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	after := snapshotGroups(s)
	for _, u := range []string{"bob@example.com", "mallory@example.com", "alice@example.com"} {
		if strings.Join(after[u], ",") != strings.Join(before[u], ",") {
			t.Errorf("out-of-scope %s changed: %v -> %v\n%s", u, before[u], after[u], r.stdout)
		}
	}
	if g := after["dave@example.com"]; !hasFold(g, "Design") || !hasFold(g, "Photo Apps") || !hasFold(g, "Engineering") {
		t.Errorf("dave = %v, want Engineering, Design and Photo Apps (from the groups expression)", g)
	}
	if _, found := after["erin@example.com"]; found {
		t.Errorf("erin, in marketing only, was created:\n%s", r.stdout)
	}
}

// TestMaxRemovalsOverride: a limit that withholds a removal lets it
// through for one run with --max-removals; a bad value is refused.
func TestMaxRemovalsOverride(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url, "unmatchedUsers: remove-groups", "unmatchedUsers: remove", "maxRemovals: 50%", "maxRemovals: 1%")
	r := runBinary(t, nil, "plan", "--config", cfg)
	if !strings.Contains(r.stdout, "! withheld - remove mallory@example.com") {
		t.Fatalf("the configured limit does not withhold mallory's removal:\n%s", r.stdout)
	}
	if r = runBinary(t, nil, "sync", "--config", cfg, "--max-removals", "lots"); r.code != exitError || !strings.Contains(r.stderr, `--max-removals "lots"`) {
		t.Errorf("a bad --max-removals: exit %d\n%s", r.code, r.stderr)
	}
	r = runBinary(t, nil, "sync", "--config", cfg, "--max-removals", "0")
	if r.code != exitOK {
		t.Fatalf("sync --max-removals 0: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if _, found := groupsOf(s, "mallory@example.com"); found {
		t.Error("mallory was not removed with the limit lifted for the run")
	}
}
