package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/target/umsim"
)

// TestPlanExplainLeftOutUnmatchedUnknown: plan --explain says which
// filter left a user out, that a user in no source is unmatched, and that
// a name nobody has is unknown to the sources and the organization.
func TestPlanExplainLeftOutUnmatchedUnknown(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	filter := "      defaultType: federatedID\n    filter: 'user.country != \"CA\"'\n"
	cfg := configFor(t, dir, "csv", s.url, "      defaultType: federatedID\n", filter)
	for _, tt := range []struct {
		name string
		want []string
	}{ // in order: the golden plans record the runs one after the other
		{"frank@example.com", []string{`left out by the filter expression user.country != "CA" (false for this record): the run leaves this user alone`,
			"planned: no change"}},
		{"mallory@example.com", []string{"no source has a record with this email or username",
			"planned: unmatched: in the organization and in no source, so policy.unmatchedUsers applies"}},
		{"nobody@example.com", []string{"no source has a record with this email or username",
			"planned: no change: the organization's users read for this plan have no such user either; check the name"}},
	} {
		name, want := tt.name, tt.want
		r := runBinary(t, nil, "plan", "--config", cfg, "--explain", name)
		if r.code != exitOK {
			t.Fatalf("plan --explain %s: exit %d\n%s\n%s", name, r.code, r.stdout, r.stderr)
		}
		for _, w := range want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("explain %s lacks %q:\n%s", name, w, r.stdout)
			}
		}
	}
}

// TestUsersFileBadLine: a bad line of the users file is reported with its
// file and line and skipped; as with a bad source record, nobody loses
// access in that run (mallory, listed and in no source, is not removed),
// and the listed users in a source are synced; the run fails as a run
// whose removals were withheld does.
func TestUsersFileBadLine(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url, "unmatchedUsers: remove-groups", "unmatchedUsers: remove", "maxRemovals: 50%", "maxRemovals: 0")
	list := filepath.Join(dir, "leavers.txt")
	if err := os.WriteFile(list, []byte("mallory@example.com\ndave@example.com\nerin evans\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, nil, "sync", "--config", cfg, "--users-file", list)
	if r.code == exitOK || !strings.Contains(r.stderr, "nothing destructive applied") {
		t.Fatalf("sync: exit %d, want the removal withheld\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if want := list + `:3: \"erin evans\" is not an email or username`; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	if _, found := groupsOf(s, "mallory@example.com"); !found {
		t.Error("mallory was removed in a run with a bad line in its users file")
	}
	if _, found := groupsOf(s, "dave@example.com"); !found {
		t.Error("dave, listed, was not created")
	}
	if strings.Contains(r.stdout, "erin@example.com") {
		t.Errorf("erin, on the bad line, was acted on:\n%s", r.stdout)
	}
	// validate reports the bad line of the configuration's users file.
	scoped := configFor(t, dir, "csv", s.url, "safety:", "scope:\n  usersFile: "+list+"\nsafety:")
	r = runBinary(t, nil, "validate", "--config", scoped)
	if r.code != exitError || !strings.Contains(r.stdout, "problem: "+list+`:3: "erin evans" is not an email or username`) {
		t.Errorf("validate: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestScopedPlanListsNoOutOfScopeUserAsUnmatched: the plan of a scoped
// run lists none of the organization's users outside the scope as
// unmatched (mallory is in no source, bob has a group too many), and
// counts them as out of scope instead.
func TestScopedPlanListsNoOutOfScopeUserAsUnmatched(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url, "unmatchedUsers: remove-groups", "unmatchedUsers: remove")
	list := filepath.Join(dir, "dave.txt")
	if err := os.WriteFile(list, []byte("dave@example.com\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--scope-groups", "design"}, {"--users-file", list}} {
		r := runBinary(t, nil, append([]string{"plan", "--config", cfg}, args...)...)
		if r.code != exitOK {
			t.Fatalf("plan %v: exit %d\n%s\n%s", args, r.code, r.stdout, r.stderr)
		}
		if strings.Contains(r.stdout, "unmatched user") || strings.Contains(r.stdout, "mallory") || strings.Contains(r.stdout, "bob@") ||
			!strings.Contains(r.stdout, " 0 unmatched") || !strings.Contains(r.stdout, "out of scope") {
			t.Errorf("plan %v lists an out-of-scope user or does not count them:\n%s", args, r.stdout)
		}
	}
}
