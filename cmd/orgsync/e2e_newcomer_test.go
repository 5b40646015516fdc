package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/target/umsim"
)

// plan --explain says that a duplicate record that disagrees with the
// first was rejected, and why, instead of listing it as if it counted.
func TestExplainRejectedDuplicate(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	appendFile(t, filepath.Join(dir, "csv", "users.csv"), "Bob,Bauer,bob@example.com,US,eng\n")
	r := runBinary(t, nil, "plan", "--config", configFor(t, dir, "csv", s.url), "--explain", "bob@example.com")
	if !strings.Contains(r.stdout, "skipped as a bad record: lastname: duplicate of the user on line") {
		t.Errorf("--explain does not say the duplicate was skipped and why:\n%s\n%s", r.stdout, r.stderr)
	}
}

// A user whose only groups in the organization do not exist there is not
// created in it with no groups: the plan says why instead.
func TestUserMappedOnlyToMissingGroupNotCreated(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url, "targets: [Marketing, All Apps]", "targets: [Marketng]")
	r := runBinary(t, nil, "plan", "--config", cfg)
	if strings.Contains(r.stdout, "+ create erin@example.com") || !strings.Contains(r.stdout, "erin@example.com is not created") {
		t.Errorf("erin, mapped only to a missing group, is created or not explained:\n%s", r.stdout)
	}
}

// The smaller things a newcomer met: the result line's plurals, a
// test-only run's summary saying so, users get --output json giving the
// user (not a list of one), and a source filter without a configured
// scope not called a scoped run.
func TestNewcomerSmallThings(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url, "      defaultType: federatedID\n",
		"      defaultType: federatedID\n    filter: 'user.email != \"frank@example.com\"'\n")
	r := runBinary(t, nil, "sync", "--test-only", "--config", cfg)
	if !strings.Contains(r.stdout, "1 request, 5 entries, 0 invite operations, 0 failures") {
		t.Errorf("the result line's plurals:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "summary (test only") {
		t.Errorf("the test-only summary does not say test only:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "scoped run") || !strings.Contains(r.stderr, "users a source's filter left out are left alone") {
		t.Errorf("a filter without a scope is logged as a scoped run:\n%s", r.stderr)
	}
	r = runBinary(t, nil, "users", "get", "alice@example.com", "--config", cfg, "--output", "json")
	if r.code != exitOK || !strings.HasPrefix(strings.TrimSpace(r.stdout), "{") || !strings.Contains(r.stdout, `"alice@example.com"`) {
		t.Errorf("users get --output json: exit %d\n%s", r.code, r.stdout)
	}
}
