package main

import (
	"strings"
	"testing"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/changecontrol/planfile"
)

// TestScopeOverrides: the scope flags (a saved plan's too) as the run's
// overrides, the limit parsed and the scope groups split; a limit that
// does not parse is named by its flag.
func TestScopeOverrides(t *testing.T) {
	t.Parallel()
	f := planfile.Flags{Orgs: "emea", MaxRemovals: "20%", ScopeGroups: "eng,design", UsersFile: "/tmp/users.txt", ExcludeUnmappedUsers: true}
	ov, err := scopeOverrides(f)
	if err != nil {
		t.Fatal(err)
	}
	if ov.MaxRemovals == nil || *ov.MaxRemovals != (config.Limit{N: 20, Percent: true}) || strings.Join(ov.ScopeGroups, "|") != "eng|design" ||
		ov.UsersFile != "/tmp/users.txt" || !ov.ExcludeUnmappedUsers || ov.Orgs != nil {
		t.Errorf("overrides %+v", ov)
	}
	if ov, err := scopeOverrides(planfile.Flags{}); err != nil || ov.MaxRemovals != nil || ov.ScopeGroups != nil {
		t.Errorf("no flags: %+v, %v", ov, err)
	}
	if _, err := scopeOverrides(planfile.Flags{MaxRemovals: "lots"}); err == nil || !strings.Contains(err.Error(), `--max-removals "lots"`) {
		t.Errorf("a bad limit: %v", err)
	}
}
