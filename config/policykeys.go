package config

import "github.com/orgsync/orgsync/reconcile"

// Settings of an organization's policy and safety limits that messages
// name besides the reconciler's (reconcile.Settings): the unmatched-users
// report, what a run over a limit does, the revocation of unmatched users'
// invites and the groups managed besides the mapped ones (the history's
// reasons).
const (
	SettingReportFile      reconcile.Setting = "reportFile"
	SettingOnLimit         reconcile.Setting = "onLimit"
	SettingRevokeUnmatched reconcile.Setting = "revokeUnmatchedInvites"
	SettingManagedGroups   reconcile.Setting = "managedGroups"
)

// policyKeys are the keys of the settings that messages name, under the
// policy: block or, for the safety limits, the safety: block.
var policyKeys = []struct {
	setting reconcile.Setting
	safety  bool // under safety:
	key     string
}{
	{reconcile.SettingUnmatched, false, "unmatchedUsers"},
	{reconcile.SettingExclude, false, "exclude"},
	{reconcile.SettingCreateUserGroups, false, "createUserGroups"},
	{reconcile.SettingResendExpiredInvites, false, "invites.resendExpired"},
	{SettingReportFile, false, "reportFile"},
	{SettingRevokeUnmatched, false, "invites.revokeUnmatched"},
	{SettingManagedGroups, false, "managedGroups"},
	{reconcile.SettingMaxRemovals, true, "maxRemovals"},
	{reconcile.SettingMaxChanges, true, "maxChanges"},
	{SettingOnLimit, true, "onLimit"},
}

// PolicyKey names setting s of organization t as the configuration file
// writes it: under t's own policy or safety limits when t has them
// (targets[1].policy.unmatchedUsers, targets[1].safety.maxRemovals), else
// under the top-level ones (policy.unmatchedUsers, safety.maxRemovals);
// onLimit, which an organization's own safety limits may leave to the
// top-level ones, where it is set. It is "" for a setting the file does
// not have. Its method value is the reconciler's reconcile.Names for t.
func (t *NamedTarget) PolicyKey(s reconcile.Setting) string {
	for _, k := range policyKeys {
		if k.setting != s {
			continue
		}
		block := "policy"
		own := t.Policy != nil
		if k.safety {
			block = "safety"
			own = t.Safety != nil && (s != SettingOnLimit || t.Safety.OnLimit != "")
		}
		if own {
			block = join(t.path, block)
		}
		return join(block, k.key)
	}
	return ""
}

// PolicyKeys are the keys of every setting PolicyKey names, by setting:
// what names them where the configuration is not at hand (a saved plan
// shown).
func (t *NamedTarget) PolicyKeys() map[reconcile.Setting]string {
	out := make(map[reconcile.Setting]string, len(policyKeys))
	for _, k := range policyKeys {
		out[k.setting] = t.PolicyKey(k.setting)
	}
	return out
}
