package run

import (
	"strings"
	"testing"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/run/approval"
	"github.com/orgsync/orgsync/reconcile"
)

// TestSafetyResolved: each organization's safety is resolved once, when
// the Job is made: its own safety settings or the top-level ones (onLimit
// from the top level when its own leave it out), the command line's limit
// on removals over them (as the flags or a saved plan's flags give it),
// each named as a message names it; the organization's policy is held to
// the same limits, under the same names.
func TestSafetyResolved(t *testing.T) {
	t.Parallel()
	three := config.Limit{N: 3}
	stopAtTop := []string{"safety:\n  maxRemovals: 50%", "safety:\n  maxRemovals: 50%\n  maxChanges: 100\n  onLimit: stop",
		"safety: {maxRemovals: 2}", "safety: {maxRemovals: 2, onLimit: hold}"}
	tests := []struct {
		name        string
		edits       []string
		maxRemovals *config.Limit
		want        map[string]approval.Safety
	}{
		{"the configuration's", nil, nil, map[string]approval.Safety{
			"main": {MaxRemovals: reconcile.Limit{Percent: 50}, MaxRemovalsBy: "safety.maxRemovals", OnLimitBy: "safety.onLimit"},
			"emea": {MaxRemovals: reconcile.Limit{Count: 2}, MaxRemovalsBy: "targets[1].safety.maxRemovals", OnLimitBy: "safety.onLimit"},
		}},
		{"an organization's own onLimit", stopAtTop, nil, map[string]approval.Safety{
			"main": {MaxRemovals: reconcile.Limit{Percent: 50}, MaxChanges: reconcile.Limit{Count: 100}, MaxRemovalsBy: "safety.maxRemovals",
				Stop: true, OnLimitBy: "safety.onLimit"},
			"emea": {MaxRemovals: reconcile.Limit{Count: 2}, MaxRemovalsBy: "targets[1].safety.maxRemovals", OnLimitBy: "targets[1].safety.onLimit"},
		}},
		{"onLimit from the top level", []string{"safety:\n  maxRemovals: 50%", "safety:\n  maxRemovals: 50%\n  onLimit: stop"}, nil, map[string]approval.Safety{
			"main": {MaxRemovals: reconcile.Limit{Percent: 50}, MaxRemovalsBy: "safety.maxRemovals", Stop: true, OnLimitBy: "safety.onLimit"},
			"emea": {MaxRemovals: reconcile.Limit{Count: 2}, MaxRemovalsBy: "targets[1].safety.maxRemovals", Stop: true, OnLimitBy: "safety.onLimit"},
		}},
		{"--max-removals over both", stopAtTop, &three, map[string]approval.Safety{
			"main": {MaxRemovals: reconcile.Limit{Count: 3}, MaxChanges: reconcile.Limit{Count: 100}, MaxRemovalsBy: "--max-removals",
				Stop: true, OnLimitBy: "safety.onLimit"},
			"emea": {MaxRemovals: reconcile.Limit{Count: 3}, MaxRemovalsBy: "--max-removals", OnLimitBy: "targets[1].safety.onLimit"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			j, err := New(exampleConfig(t, "multiorg", tt.edits...), Overrides{MaxRemovals: tt.maxRemovals}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for org, want := range tt.want {
				if got := j.gate.byOrg[org]; got != want {
					t.Errorf("%s's safety %+v, want %+v", org, got, want)
				}
				p := j.byOrg[org].policy.Policy()
				if p.MaxRemovals != want.MaxRemovals || p.MaxChanges != want.MaxChanges || p.Names.Of(reconcile.SettingMaxRemovals) != want.MaxRemovalsBy {
					t.Errorf("%s's policy: maxRemovals %+v (%s), maxChanges %+v; want its safety's", org, p.MaxRemovals,
						p.Names.Of(reconcile.SettingMaxRemovals), p.MaxChanges)
				}
			}
		})
	}
}

// TestSafetyLimitsRefusedOutOfRange: a limit on removals out of range
// fails the Job, named by its organization, as Load fails the
// configuration's.
func TestSafetyLimitsRefusedOutOfRange(t *testing.T) {
	t.Parallel()
	cfg := exampleConfig(t, "multiorg")
	_, err := New(cfg, Overrides{MaxRemovals: &config.Limit{N: 150, Percent: true}}, Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "targets[0]: ") || !strings.Contains(err.Error(), "percent within 0..100") {
		t.Errorf("--max-removals 150%%: %v, want refused for targets[0]", err)
	}
}
