package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/internal/changecontrol/planfile"
	"github.com/orgsync/orgsync/target/umsim"
)

// TestSavedPlanReviewThenApply: plan --out saves the plan with its
// fingerprints; show renders it as text and JSON; apply applies it when a
// fresh plan is the same, and refuses, listing the differences, when the
// sources changed, when the configuration changed, or when it is too old.
func TestSavedPlanReviewThenApply(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := configFor(t, dir, "csv", s.url, "maxRemovals: 50%", "maxRemovals: 50%\nstate:\n  dir: state")
	saved := filepath.Join(dir, "reviewed.json")
	r := runBinary(t, nil, "plan", "--config", cfg, "--out", saved)
	if r.code != exitOK || !strings.Contains(r.stdout, "plan saved to "+saved) {
		t.Fatalf("plan --out: exit %d\n%s", r.code, r.stderr)
	}
	r = runBinary(t, nil, "show", saved)
	if r.code != exitOK || !strings.Contains(r.stdout, "saved plan (format 1)") || !strings.Contains(r.stdout, "+ create dave@example.com") {
		t.Errorf("show: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runBinary(t, nil, "show", saved, "--output", "json")
	var f planfile.File
	if err := json.Unmarshal([]byte(r.stdout), &f); err != nil || len(f.Organizations) != 1 || f.Config == "" || f.Sources == "" ||
		f.Organizations[0].Current == "" || f.Created.IsZero() || f.ToolVersion == "" {
		t.Fatalf("show --output json: %v\n%s", err, r.stdout)
	}

	// The sources change after the review: apply refuses, naming the change.
	appendFile(t, filepath.Join(dir, "csv", "users.csv"), "Zed,Zero,zed@example.com,US,eng\n")
	r = runBinary(t, nil, "apply", saved, "--config", cfg)
	if r.code != exitError || !strings.Contains(r.stderr, "refused") || !strings.Contains(r.stderr, "only in a fresh plan:  + create zed@example.com") {
		t.Fatalf("apply after a source changed: exit %d\n%s", r.code, r.stderr)
	}
	if _, found := groupsOf(s, "dave@example.com"); found {
		t.Fatal("a refused apply changed the organization")
	}
	rewrite(t, filepath.Join(dir, "csv", "users.csv"), "Zed,Zero,zed@example.com,US,eng\n", "")

	r = runBinary(t, nil, "apply", saved, "--config", cfg, "--max-age", "1ms")
	if r.code != exitError || !strings.Contains(r.stderr, "refused: a fresh plan is the saved plan, but the plan is ") || !strings.Contains(r.stderr, "more than --max-age") {
		t.Errorf("apply of an old plan: exit %d\n%s", r.code, r.stderr)
	}
	for _, maxAge := range []string{"0s", "-1h"} {
		if r = runBinary(t, nil, "apply", saved, "--config", cfg, "--max-age", maxAge); r.code != exitError || !strings.Contains(r.stderr, "more than 0") {
			t.Errorf("apply --max-age %s: exit %d\n%s", maxAge, r.code, r.stderr)
		}
	}
	rewrite(t, cfg, "unmatchedUsers: remove-groups", "unmatchedUsers: preserve")
	r = runBinary(t, nil, "apply", saved, "--config", cfg)
	if r.code != exitError || !strings.Contains(r.stderr, "configuration") || !strings.Contains(r.stderr, "only in the saved plan:") ||
		strings.Contains(r.stderr, "not in a way that changes this plan") {
		t.Errorf("apply after the configuration changed: exit %d, want a refusal that does not say the changes do not matter\n%s", r.code, r.stderr)
	}
	rewrite(t, cfg, "unmatchedUsers: preserve", "unmatchedUsers: remove-groups")

	r = runBinary(t, nil, "apply", saved, "--config", cfg)
	if r.code != exitOK || !strings.Contains(r.stdout, "applying it") {
		t.Fatalf("apply of the reviewed plan: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if g, found := groupsOf(s, "dave@example.com"); !found || !hasFold(g, "Engineering") {
		t.Errorf("dave after apply: %v (found %v)", g, found)
	}
	if r = runBinary(t, nil, "plan", "--config", cfg, "--detailed-exitcode"); r.code != exitOK {
		t.Errorf("plan after apply: exit %d\n%s", r.code, r.stdout)
	}
	r = runBinary(t, nil, "apply", saved, "--config", cfg)
	if r.code != exitError || !strings.Contains(r.stderr, "the saved plan was applied already") ||
		!regexp.MustCompile(`already applied \([0-9TZ:-]+\): \+ create dave@example.com`).MatchString(r.stderr) || strings.Contains(r.stderr, "only in the saved plan") {
		t.Errorf("applying the plan a second time: exit %d, want a refusal saying it was applied\n%s", r.code, r.stderr)
	}
}

// TestReviewAMassRemovalThenApplyIt: a plan saved with --max-removals
// over the configuration's limit (and --orgs, --scope-groups) records
// those flags; apply makes its fresh plan with them and applies exactly
// the reviewed removals.
func TestReviewAMassRemovalThenApplyIt(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	cfg := heldConfig(t, dir, s.url, "")
	saved := filepath.Join(dir, "mass-removal.json")
	r := runBinary(t, nil, "plan", "--config", cfg, "--max-removals", "10", "--orgs", "default", "--out", saved)
	if r.code != exitOK || strings.Contains(r.stdout, "! withheld") {
		t.Fatalf("plan --max-removals 10 --out: exit %d, want the removals planned, none withheld\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r = runBinary(t, nil, "show", saved); !strings.Contains(r.stdout, "made with --orgs default --max-removals 10 (orgsync apply uses them too)") {
		t.Errorf("show does not say the flags the plan was made with:\n%s", r.stdout)
	}
	r = runBinary(t, nil, "apply", saved, "--config", cfg)
	if r.code != exitOK || heldID.MatchString(r.stdout) {
		t.Fatalf("apply of the reviewed mass removal: exit %d, want it applied, nothing held\n%s%s", r.code, r.stdout, r.stderr)
	}
	if g, _ := groupsOf(s, "mallory@example.com"); hasFold(g, "Marketing") {
		t.Errorf("the reviewed removal was not applied: mallory has %v", g)
	}
}
