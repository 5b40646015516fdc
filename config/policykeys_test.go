package config

import (
	"strings"
	"testing"

	"github.com/orgsync/orgsync/reconcile"
)

// TestPolicyKeyNamesTheOrganizationsOwnSettings: a setting is named where
// the organization's configuration has it: under targets[i].policy or
// targets[i].safety when the organization has its own, else under the
// top-level blocks (onLimit, which its own safety limits may leave out,
// where it is set); the loaded policy names its settings so.
func TestPolicyKeyNamesTheOrganizationsOwnSettings(t *testing.T) {
	t.Parallel()
	single := loadText(t, minimal)
	own := loadText(t, strings.Replace(twoOrgs, "    safety: {maxChanges: 7}\n",
		"    safety: {maxChanges: 7, onLimit: stop}\n    policy: {unmatchedUsers: remove}\n", 1))
	shared := loadText(t, twoOrgs)
	for _, tc := range []struct {
		name    string
		t       *NamedTarget
		setting reconcile.Setting
		want    string
	}{
		{"single target", single.Primary(), reconcile.SettingUnmatched, "policy.unmatchedUsers"},
		{"single target", single.Primary(), reconcile.SettingMaxRemovals, "safety.maxRemovals"},
		{"single target", single.Primary(), SettingOnLimit, "safety.onLimit"},
		{"primary", &own.Targets[0], reconcile.SettingCreateUserGroups, "policy.createUserGroups"},
		{"own policy", &own.Targets[1], reconcile.SettingUnmatched, "targets[1].policy.unmatchedUsers"},
		{"own policy", &own.Targets[1], reconcile.SettingResendExpiredInvites, "targets[1].policy.invites.resendExpired"},
		{"own policy", &own.Targets[1], SettingReportFile, "targets[1].policy.reportFile"},
		{"own safety", &own.Targets[1], reconcile.SettingMaxRemovals, "targets[1].safety.maxRemovals"},
		{"own safety", &own.Targets[1], SettingOnLimit, "targets[1].safety.onLimit"},
		{"top-level policy", &shared.Targets[1], reconcile.SettingExclude, "policy.exclude"},
		{"own safety", &shared.Targets[1], reconcile.SettingMaxChanges, "targets[1].safety.maxChanges"},
		{"own safety without onLimit", &shared.Targets[1], SettingOnLimit, "safety.onLimit"},
		{"a setting the file does not have", &shared.Targets[1], "noSuchSetting", ""},
	} {
		if got := tc.t.PolicyKey(tc.setting); got != tc.want {
			t.Errorf("%s: %s of %s = %q, want %q", tc.name, tc.setting, tc.t.Path(), got, tc.want)
		}
	}
	p, err := own.ValidPolicy(&own.Targets[1])
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Policy().Names.Of(reconcile.SettingUnmatched); got != "targets[1].policy.unmatchedUsers" {
		t.Errorf("the loaded policy of targets[1] names unmatched %q", got)
	}
}

// Every setting the reconciler's words name has a key in the file.
func TestPolicyKeyNamesEveryReconcilerSetting(t *testing.T) {
	t.Parallel()
	cfg := loadText(t, twoOrgs)
	keys := cfg.Targets[1].PolicyKeys()
	for _, s := range reconcile.Settings() {
		if keys[s] == "" {
			t.Errorf("reconcile.%s has no key in the configuration (policyKeys)", s)
		}
	}
}
