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
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url, "targets: [Marketing, All Apps]", "targets: [Marketng]")
	r := runBinary(t, nil, "plan", "--config", cfg)
	if strings.Contains(r.stdout, "+ create erin@example.com") || !strings.Contains(r.stdout, "erin@example.com is not created") {
		t.Errorf("erin, mapped only to a missing group, is created or not explained:\n%s", r.stdout)
	}
}
