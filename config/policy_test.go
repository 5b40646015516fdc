package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/reconcile"
)

func TestReconcilePolicy(t *testing.T) {
	t.Parallel()
	text := minimal + `  - pattern: "app-(.*)"
    targets: ["$1", All Apps]
policy:
  managedGroups: [Extra]
  userGroups: [Engineering]
  exclude: {identityTypes: [vendor], groups: [_org_admin], usernames: ["^svc-"]}
  unmatchedUsers: remove
  updateAttributes: [lastname]
  invites: {revokeUnmatched: true}
safety: {maxRemovals: 7, maxChanges: "20%"}
`
	dir := write(t, map[string]string{"c.yaml": text, "key.pem": "K", "users.csv": "email\n"}, 0o600)
	cfg, err := Load(filepath.Join(dir, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := cfg.Mapper()
	if err != nil {
		t.Fatal(err)
	}
	p, err := cfg.ReconcilePolicy(m)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Managed, ","); got != "Engineering,All Apps,Extra" {
		t.Errorf("managed = %s", got)
	}
	if p.Unmatched != reconcile.RemoveUsers || !p.RevokeUnmatchedInvites || !p.ResendExpiredInvites { // resendExpired: on by default
		t.Errorf("unmatched/invites = %+v", p)
	}
	if p.Update != (reconcile.Attributes{LastName: true}) {
		t.Errorf("update = %+v", p.Update)
	}
	if len(p.ExcludeTypes) != 1 || p.ExcludeTypes[0] != reconcile.VendorID || !p.ExcludeUsernames[0].MatchString("svc-x") {
		t.Errorf("exclusions = %+v", p)
	}
	if p.MaxRemovals != (reconcile.Limit{Count: 7}) || p.MaxChanges != (reconcile.Limit{Percent: 20}) {
		t.Errorf("limits = %+v %+v", p.MaxRemovals, p.MaxChanges)
	}
}

func TestPolicyCheckedAtLoad(t *testing.T) {
	t.Parallel()
	text := minimal + "policy:\n  userGroups: [_admin_Unmapped]\n"
	dir := write(t, map[string]string{"c.yaml": text, "key.pem": "K", "users.csv": "email\n"}, 0o600)
	_, err := Load(filepath.Join(dir, "c.yaml"))
	if err == nil || !strings.Contains(err.Error(), `policy (line 14): userGroups: "_admin_Unmapped" is an admin group, not a user group`) {
		t.Errorf("err = %v", err)
	}
}

// policy.invites.resendExpired is on unless the file turns it off.
func TestResendExpiredCanBeTurnedOff(t *testing.T) {
	t.Parallel()
	cfg := loadText(t, minimal+"policy:\n  invites: {resendExpired: false}\n")
	if cfg.Policy.Invites.ResendExpired {
		t.Error("resendExpired: false is not kept")
	}
}
