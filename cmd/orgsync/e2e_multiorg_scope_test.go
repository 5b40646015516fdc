package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/target/umsim"
)

// multiOrgRemove are the replacements that make examples/multiorg remove
// every user in no source, with emea's own safety limit allowing no
// removal (1% of its few managed users).
var multiOrgRemove = []string{"unmatchedUsers: remove-groups", "unmatchedUsers: remove", "safety: {maxRemovals: 2}", "safety: {maxRemovals: 1%}"}

// TestMultiOrgExplain: plan --explain writes the sources' side of a user
// once and its planned changes in each organization, and says why an
// organization that takes mapped users only does not take it.
func TestMultiOrgExplain(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startMultiSim(t, dir, "sim/orgs.yaml", umsim.Options{})
	cfg := configFor(t, dir, "multiorg", s.url)
	r := runBinary(t, nil, "plan", "--config", cfg, "--explain", "dave@example.com", "--detailed-exitcode")
	if r.code != exitChanges {
		t.Fatalf("plan --explain: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	_, ex, _ := strings.Cut(r.stdout, "explain dave@example.com:\n")
	for _, want := range []string{
		`directory group "design": mapping[1] (directory "design") gives Design, emea::Design`,
		"planned in main: + create dave@example.com (federatedID)",
		"planned in emea: + create dave@example.com (federatedID) firstname=\"Dave\" lastname=\"Doe\" country=\"US\" groups: +Design\n",
	} {
		if !strings.Contains(ex, want) {
			t.Errorf("the explanation lacks %q:\n%s", want, ex)
		}
	}
	if n := strings.Count(ex, `directory group "eng"`); n != 1 {
		t.Errorf("the sources' side is written %d times, want once:\n%s", n, ex)
	}
	// erin is mapped to groups of main only: emea, which takes mapped
	// users, does not take her.
	r = runBinary(t, nil, "plan", "--config", cfg, "--explain", "erin@example.com", "--output", "json")
	for _, want := range []string{"planned in main: + create erin@example.com", "in emea: no group of emea for this user (members: mapped)", "planned in emea: no change"} {
		if r.code != exitOK || !strings.Contains(r.stderr, want) {
			t.Errorf("explain erin lacks %q: exit %d\n%s", want, r.code, r.stderr)
		}
	}
}

// TestMultiOrgScopedRuns: a run scoped to a directory group, then to a
// file of users, over both organizations of examples/multiorg with the
// policy that removes every user in no source: no user out of scope is
// removed or changed in any organization; emea's own safety limit
// withholds its removal while main's goes through, and --max-removals
// overrides both.
func TestMultiOrgScopedRuns(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startMultiSim(t, dir, "sim/orgs.yaml", umsim.Options{})
	main, emea := s.Org(mainOrg), s.Org(emeaOrg)
	cfg := configFor(t, dir, "multiorg", s.url, multiOrgRemove...)
	before := map[string]map[string][]string{"main": snapshotGroups(main), "emea": snapshotGroups(emea)}
	unchanged := func(step, org string, s *umsim.Server, users ...string) {
		t.Helper()
		now := snapshotGroups(s)
		for _, u := range users {
			if g, found := now[u]; !found || strings.Join(g, ",") != strings.Join(before[org][u], ",") {
				t.Errorf("%s: out-of-scope %s in %s: %v (found %v), was %v", step, u, org, g, found, before[org][u])
			}
		}
	}

	// Scoped to the design group: dave is created in both; mallory and
	// oscar (in no source), frank (no group) and bob (not a designer) are
	// left alone, also by the explanation.
	r := runBinary(t, nil, "plan", "--config", cfg, "--scope-groups", "design", "--explain", "frank@example.com")
	for _, want := range []string{"left out: in none of the scope groups", "planned in main: no change", "planned in emea: no change", "3 out of scope", "2 out of scope"} {
		if r.code != exitOK || !strings.Contains(r.stdout, want) {
			t.Errorf("plan --scope-groups design --explain frank lacks %q: exit %d\n%s\n%s", want, r.code, r.stdout, r.stderr)
		}
	}
	r = runBinary(t, nil, "sync", "--config", cfg, "--scope-groups", "design")
	if r.code != exitOK {
		t.Fatalf("sync --scope-groups design: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	unchanged("--scope-groups", "main", main, "mallory@example.com", "bob@example.com")
	unchanged("--scope-groups", "emea", emea, "oscar@example.com", "frank@example.com")
	for org, s := range map[string]*umsim.Server{"main": main, "emea": emea} {
		if g, _ := groupsOf(s, "dave@example.com"); !hasFold(g, "Design") {
			t.Errorf("dave in %s: %v", org, g)
		}
	}

	// Scoped to a file listing oscar and mallory: main removes mallory;
	// emea's own limit withholds oscar's removal, and the run fails.
	list := filepath.Join(dir, "leavers.txt")
	if err := os.WriteFile(list, []byte("# reviewed leavers\noscar@example.com\nmallory@example.com\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runBinary(t, nil, "sync", "--config", cfg, "--users-file", list)
	if r.code != exitError || !strings.Contains(r.stderr, "organization emea: ") || strings.Contains(r.stderr, "organization main: ") {
		t.Errorf("sync --users-file: exit %d, want 1 for emea's safety limit alone\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if _, found := groupsOf(main, "mallory@example.com"); found {
		t.Error("mallory, listed and in no source, is still in main")
	}
	unchanged("--users-file", "emea", emea, "oscar@example.com", "frank@example.com")
	unchanged("--users-file", "main", main, "bob@example.com")
	if _, found := groupsOf(main, "erin@example.com"); found {
		t.Error("erin, not listed, was created in main")
	}

	// --max-removals replaces emea's own limit for the run.
	r = runBinary(t, nil, "sync", "--config", cfg, "--users-file", list, "--max-removals", "0")
	if r.code != exitOK {
		t.Fatalf("sync --users-file --max-removals 0: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if _, found := groupsOf(emea, "oscar@example.com"); found {
		t.Error("oscar is still in emea after --max-removals 0")
	}
	unchanged("--max-removals", "emea", emea, "frank@example.com")
}

// TestMultiOrgDetailedExitcodeAndMembersAll: with emea taking every source
// user (members: all), plan --detailed-exitcode exits 2 while any selected
// organization has changes, also when the other is in step.
func TestMultiOrgDetailedExitcodeAndMembersAll(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startMultiSim(t, dir, "sim/orgs.yaml", umsim.Options{})
	cfg := configFor(t, dir, "multiorg", s.url, "    members: mapped\n", "    members: all\n")
	if r := runBinary(t, nil, "sync", "--config", cfg, "--orgs", "main"); r.code != exitOK {
		t.Fatalf("sync --orgs main: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r := runBinary(t, nil, "plan", "--config", cfg, "--orgs", "main", "--detailed-exitcode"); r.code != exitOK {
		t.Errorf("plan --orgs main after syncing it: exit %d\n%s", r.code, r.stdout)
	}
	r := runBinary(t, nil, "plan", "--config", cfg, "--detailed-exitcode")
	_, emeaPart, _ := strings.Cut(r.stdout, "== organization emea")
	if r.code != exitChanges || !strings.Contains(emeaPart, "+ create erin@example.com") {
		t.Errorf("plan with main in step and emea not: exit %d, want 2 and erin created in emea\n%s", r.code, r.stdout)
	}
	if r := runBinary(t, nil, "sync", "--config", cfg); r.code != exitOK {
		t.Fatalf("sync: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if g, found := groupsOf(s.Org(emeaOrg), "erin@example.com"); !found || len(g) != 0 {
		t.Errorf("erin in emea (members: all): %v (found %v), want a member with no group", g, found)
	}
	if r := runBinary(t, nil, "plan", "--config", cfg, "--detailed-exitcode"); r.code != exitOK {
		t.Errorf("plan after the sync: exit %d\n%s", r.code, r.stdout)
	}
}

// TestMultiOrgExcludeUnmappedUsersPerOrganization: with
// --exclude-unmapped-users a user is unmapped in each organization where
// it has none of the groups: nora, mapped to emea only, is not created in
// main; erin, mapped to main only and a member of emea, keeps emea's
// Design (without the flag she loses it).
func TestMultiOrgExcludeUnmappedUsersPerOrganization(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	rewrite(t, filepath.Join(dir, "sim", "orgs.yaml"), // frank in emea becomes erin
		"{email: frank@example.com, firstname: Frank, lastname: Fuller, country: CA,",
		"{email: erin@example.com, firstname: Erin, lastname: Evans, country: FR,")
	appendFile(t, filepath.Join(dir, "csv", "users.csv"), "Nora,Body,nora@example.com,GB,emea-only\n")
	s := startMultiSim(t, dir, "sim/orgs.yaml", umsim.Options{})
	cfg := configFor(t, dir, "multiorg", s.url, "mapping:\n", "mapping:\n  - directory: emea-only\n    targets: [\"emea::Design\"]\n")
	r := runBinary(t, nil, "plan", "--config", cfg)
	if _, emeaPart, _ := strings.Cut(r.stdout, "== organization emea"); !strings.Contains(emeaPart, "~ update erin@example.com (federatedID) groups: -Design") {
		t.Errorf("without the flag erin does not lose emea's Design:\n%s", r.stdout)
	}
	r = runBinary(t, nil, "sync", "--config", cfg, "--exclude-unmapped-users")
	if r.code != exitOK {
		t.Fatalf("sync --exclude-unmapped-users: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	main, emea := s.Org(mainOrg), s.Org(emeaOrg)
	if _, found := groupsOf(main, "nora@example.com"); found {
		t.Error("nora, with no group of main, was created in main")
	}
	if g, _ := groupsOf(emea, "nora@example.com"); !hasFold(g, "Design") {
		t.Errorf("nora in emea: %v", g)
	}
	if g, _ := groupsOf(emea, "erin@example.com"); !hasFold(g, "Design") {
		t.Errorf("erin, with no group of emea, lost its Design: %v", g)
	}
	if g, _ := groupsOf(main, "erin@example.com"); !hasFold(g, "Marketing") {
		t.Errorf("erin in main: %v", g)
	}
}
