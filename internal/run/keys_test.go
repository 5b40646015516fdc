package run

import (
	"strings"
	"testing"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/reconcile"
)

// TestPlansNameTheOrganizationsOwnSettings: what a plan says names the
// settings where the organization's configuration has them: emea
// (targets[1]) with its own policy and safety limits gets
// targets[1].policy and targets[1].safety, main the top-level ones; a
// limit the command line set is named by its flag.
func TestPlansNameTheOrganizationsOwnSettings(t *testing.T) {
	t.Parallel()
	cfg := exampleConfig(t, "multiorg", "    safety: {maxRemovals: 2}\n",
		"    safety: {maxRemovals: 1, onLimit: stop}\n    policy: {unmatchedUsers: remove, exclude: {groups: [_org_admin]}}\n")
	_, plans := planJob(t, cfg, Overrides{}, Options{})
	main, emea := plans.Gated[0].OrgPlan().Plan, plans.Gated[1].OrgPlan().Plan
	for _, c := range []struct {
		plan    *reconcile.Plan
		setting reconcile.Setting
		want    string
	}{
		{main, reconcile.SettingUnmatched, "policy.unmatchedUsers"},
		{main, config.SettingReportFile, "policy.reportFile"},
		{emea, reconcile.SettingUnmatched, "targets[1].policy.unmatchedUsers"},
		{emea, reconcile.SettingExclude, "targets[1].policy.exclude"},
		{emea, reconcile.SettingMaxChanges, "targets[1].safety.maxChanges"},
	} {
		if got := c.plan.Names.Of(c.setting); got != c.want {
			t.Errorf("the plan names %s %q, want %q", c.setting, got, c.want)
		}
	}
	want := "2 removals exceed targets[1].safety.maxRemovals 1 (targets[1].safety.onLimit: stop)"
	if emea.Safety == nil || emea.Safety.Reason != want || main.Safety != nil {
		t.Fatalf("emea's safety %+v, main's %+v; want emea's reason %q", emea.Safety, main.Safety, want)
	}
	_, plans = planJob(t, cfg, Overrides{MaxRemovals: &config.Limit{N: 1}}, Options{})
	emea = plans.Gated[1].OrgPlan().Plan
	if emea.Safety == nil || !strings.HasPrefix(emea.Safety.Reason, "2 removals exceed --max-removals 1 (") {
		t.Errorf("with --max-removals: emea's safety %+v", emea.Safety)
	}
}
