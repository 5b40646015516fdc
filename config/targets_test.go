package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umapi"
)

// twoOrgs has a primary and a secondary organization, a mapping into both
// and a secondary with its own safety limits.
const twoOrgs = `targets:
  - name: main
    orgId: 12AB@VendorOrg
    baseURL: https://um.example.com
    auth: &auth
      clientId: cid
      clientSecret: {env: TEST_SECRET}
      technicalAccountId: tech@techacct.example.com
      privateKey: {file: key.pem}
  - name: emea
    orgId: 34CD@VendorOrg
    baseURL: https://um.example.com
    limits: {reads: 10}
    auth: *auth
    safety: {maxChanges: 7}
sources:
  - csv: {path: users.csv}
mapping:
  - directory: eng
    targets: [Engineering, "emea::Engineering"]
policy:
  managedGroups: [Extra, "emea::Contractors"]
  exclude: {groups: [_org_admin]}
`

func TestTargetsListAndQualifiedGroups(t *testing.T) {
	t.Parallel()
	dir := write(t, map[string]string{"c.yaml": twoOrgs, "key.pem": "KEY", "users.csv": "email\n"}, 0o600)
	cfg, err := Load(filepath.Join(dir, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.MultiOrg() || len(cfg.Targets) != 2 || cfg.Primary().Name != "main" {
		t.Fatalf("targets = %+v", cfg.Targets)
	}
	emea := &cfg.Targets[1]
	if emea.Limits.Reads != 10 || emea.Limits.Requests != umapi.DefaultAppLimit || emea.Members != MembersMapped || cfg.Primary().Members != MembersAll {
		t.Errorf("emea defaults: %+v members %q", emea.Limits, emea.Members)
	}
	if len(cfg.Warnings) != 1 || cfg.Warnings[0].Path != "targets[1].auth.clientId" || !strings.Contains(cfg.Warnings[0].Message, "the same integration as targets[0]") {
		t.Errorf("warnings = %v, want one for the shared integration", cfg.Warnings)
	}
	if emea.Safety.MaxChanges.N != 7 || emea.Safety.MaxRemovals != (Limit{N: 10, Percent: true}) {
		t.Errorf("emea safety = %+v (maxRemovals keeps its default)", emea.Safety)
	}
	if want := filepath.Join(dir, "key.pem"); emea.Auth.PrivateKey.File != want {
		t.Errorf("emea key path = %q, want %q", emea.Auth.PrivateKey.File, want)
	}
	m, err := cfg.Mapper()
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"Engineering,Extra", "Engineering,Contractors"} {
		p, err := cfg.TargetPolicy(&cfg.Targets[i], m)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(p.Managed, ","); got != want {
			t.Errorf("%s managed = %q, want %q", cfg.Targets[i].Name, got, want)
		}
		if strings.Join(p.ExcludeGroups, ",") != "_org_admin" {
			t.Errorf("%s exclude = %v: unqualified exclusions apply everywhere", cfg.Targets[i].Name, p.ExcludeGroups)
		}
	}
	if p, _ := cfg.TargetPolicy(emea, m); p.MaxChanges.Count != 7 {
		t.Errorf("emea max changes = %+v", p.MaxChanges)
	}
	if i, g, ok := cfg.TargetIndex("emea::Design"); i != 1 || g != "Design" || !ok {
		t.Errorf("TargetIndex = %d %q %v", i, g, ok)
	}
}

func TestSingleTargetIsDefault(t *testing.T) {
	t.Parallel()
	cfg := loadText(t, minimal)
	if cfg.MultiOrg() || len(cfg.Targets) != 1 || cfg.Primary().Name != DefaultTargetName || cfg.Primary().Path() != "target" {
		t.Fatalf("targets = %+v", cfg.Targets)
	}
	if cfg.Primary().Target.OrgID != cfg.Target.OrgID || cfg.Primary().Limits != cfg.Target.Limits {
		t.Errorf("primary %+v differs from target %+v", cfg.Primary().Target, cfg.Target)
	}
}

func TestTargetsProblemsCarryPathsAndLines(t *testing.T) {
	t.Parallel()
	bad := strings.NewReplacer(
		"  - name: emea\n    orgId: 34CD@VendorOrg", "  - name: emea\n    orgId: 12ab@VendorOrg",
		`targets: [Engineering, "emea::Engineering"]`, `targets: [Engineering, "apac::Engineering"]`,
		`"emea::Contractors"`, `"emae::Contractors", "::Odd", "main::"`,
		"sources:", "  - name: spare\n    orgId: 56EF@VendorOrg\n    baseURL: https://um.example.com\n    auth: *auth\nsources:",
	).Replace(twoOrgs)
	dir := write(t, map[string]string{"c.yaml": bad, "key.pem": "KEY", "users.csv": "email\n"}, 0o600)
	_, err := Load(filepath.Join(dir, "c.yaml"))
	var cerr *Error
	if !errors.As(err, &cerr) {
		t.Fatalf("err = %v", err)
	}
	msg := cerr.Error()
	for _, want := range []string{
		`targets[1].orgId (line 11): 12ab@VendorOrg is already the organization of targets[0]`,
		`mapping[0].targets[1] (line 24): unknown organization "apac": the targets are main, emea, spare`,
		`policy.managedGroups[1] (line 26): unknown organization "emae"`,
		`targets[1] (line 10): organization "emea" gets no group`,
		`targets[2] (line 16): organization "spare" gets no group`,
		`policy.managedGroups[2] (line 26): "::Odd": write org::Group with an organization's name before ::`,
		`policy.managedGroups[3] (line 26): "main::" names no group after ::`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in:\n%s", want, msg)
		}
	}
	both := minimal + "targets: []\n"
	if _, err := Parse([]byte(both), filepath.Join(dir, "both.yaml")); err == nil || !strings.Contains(err.Error(), "set target (one organization) or targets") {
		t.Errorf("target and targets: %v", err)
	}
	none := strings.SplitN(minimal, "sources:", 2)[1]
	if _, err := Parse([]byte("sources:"+none), filepath.Join(dir, "none.yaml")); err == nil || !strings.Contains(err.Error(), "target: required") ||
		strings.Contains(err.Error(), "orgId") {
		t.Errorf("no target: %v", err)
	}
}

// TestTargetsDuplicateName: a name given twice is reported once, and the
// list of known organizations in other problems names each once.
func TestTargetsDuplicateName(t *testing.T) {
	t.Parallel()
	dup := strings.Replace(twoOrgs, "  - name: emea\n", "  - name: main\n", 1)
	dir := write(t, map[string]string{"c.yaml": dup, "key.pem": "KEY", "users.csv": "email\n"}, 0o600)
	_, err := Load(filepath.Join(dir, "c.yaml"))
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if !strings.Contains(msg, `targets[1].name (line 10): "main" is already the name of targets[0]`) ||
		!strings.Contains(msg, `unknown organization "emea": the targets are main (an unqualified`) || strings.Contains(msg, "gets no group") {
		t.Errorf("problems:\n%s", msg)
	}
}

func TestTargetOwnPolicy(t *testing.T) {
	t.Parallel()
	own := strings.Replace(twoOrgs, "    safety: {maxChanges: 7}\n",
		"    safety: {maxChanges: 7}\n    policy: {managedGroups: [Own, \"emea::Too\"], unmatchedUsers: remove, exclude: {groups: [VIP]}}\n", 1)
	dir := write(t, map[string]string{"c.yaml": own, "key.pem": "KEY", "users.csv": "email\n"}, 0o600)
	cfg, err := Load(filepath.Join(dir, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m, _ := cfg.Mapper()
	p, err := cfg.TargetPolicy(&cfg.Targets[1], m)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(p.Managed, ",") != "Engineering,Own,Too" || p.Unmatched != "remove" || strings.Join(p.ExcludeGroups, ",") != "VIP" || !p.Update.FirstName {
		t.Errorf("emea's own policy = %+v (managed: its mapped groups and its own list; defaults applied)", p)
	}
	if p, _ := cfg.TargetPolicy(cfg.Primary(), m); p.Unmatched != "preserve" {
		t.Errorf("main took emea's policy: %+v", p)
	}
	if got := cfg.Targets[1].PolicyKey(reconcile.SettingUnmatched); got != "targets[1].policy.unmatchedUsers" {
		t.Errorf("emea's key = %q, want its own policy's", got)
	}
	if got := cfg.Primary().PolicyKey(SettingRevokeUnmatched); got != "policy.invites.revokeUnmatched" {
		t.Errorf("main's key = %q, want the top-level policy's", got)
	}
	bad := strings.NewReplacer("unmatchedUsers: remove,", "unmatchedUsers: purge,", "emea::Too", "main::Too").Replace(own)
	_, err = Parse([]byte(bad), filepath.Join(dir, "bad.yaml"))
	for _, want := range []string{
		`targets[1].policy.unmatchedUsers (line 16): "purge" is not allowed`,
		`targets[1].policy.managedGroups[1] (line 16): "main::Too" names organization "main": the policy of emea names its own groups ("Too")`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("bad own policy: want %q in %v", want, err)
		}
	}
}
