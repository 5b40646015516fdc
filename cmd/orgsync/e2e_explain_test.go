package main

import (
	"strings"
	"testing"

	"github.com/orgsync/orgsync/target/umsim"
)

// TestPlanExplainLeftOutUnmatchedUnknown: plan --explain says which
// filter left a user out, that a user in no source is unmatched, and that
// a name nobody has is unknown to the sources and the organization.
func TestPlanExplainLeftOutUnmatchedUnknown(t *testing.T) {
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	filter := "      defaultType: federatedID\n    filter: 'user.country != \"CA\"'\n"
	cfg := configFor(t, dir, "csv", s.url, "      defaultType: federatedID\n", filter)
	for name, want := range map[string][]string{
		"frank@example.com": {`left out by the filter expression user.country != "CA" (false for this record): the run leaves this user alone`,
			"planned: no change"},
		"mallory@example.com": {"no source has a record with this email or username",
			"planned: unmatched: in the organization and in no source, so policy.unmatchedUsers applies"},
		"nobody@example.com": {"no source has a record with this email or username",
			"planned: no change: the organization's users read for this plan have no such user either; check the name"},
	} {
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
