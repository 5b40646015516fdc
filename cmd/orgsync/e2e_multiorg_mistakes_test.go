package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/target/umsim"
)

// TestMultiOrgMistakesNameTheOrganization makes the mistakes a new
// administrator makes in one organization of examples/multiorg: each
// error names the key path (and the organization) and what to check; a
// mistake found when loading touches no organization, one found at the
// service (a wrong secret, a dead address) fails that organization only,
// and the other is synced.
func TestMultiOrgMistakesNameTheOrganization(t *testing.T) {
	t.Parallel()
	emea := "  - name: emea\n    orgId: 5678EF01@VendorOrg\n    baseURL: "
	tests := []struct {
		name       string
		replace    []string
		want       []string // in standard error
		mainSynced bool     // else neither organization is touched
	}{
		{"typo in an organization name", []string{`"emea::Design"`, `"emae::Design"`},
			[]string{`mapping[1].targets[1] (line 43): unknown organization "emae": the targets are main, emea`}, false},
		{"one orgId twice", []string{"orgId: 5678EF01@VendorOrg", "orgId: 1234ABCD@VendorOrg"},
			[]string{"targets[1].orgId (line 19): 1234ABCD@VendorOrg is already the organization of targets[0]"}, false},
		{"wrong secret for one organization", []string{"clientId: orgsync-demo-emea\n", "clientId: orgsync-demo-emea\n      clientSecret: {file: ../wrong-secret}\n"},
			[]string{"organization emea: reading the organization", "the service refused the sign-in: check targets[1].orgId (5678EF01@VendorOrg) and targets[1].auth"}, true},
		{"dead address for one organization", []string{emea, emea + "http://127.0.0.1:9\n    authBaseURL: "},
			[]string{"organization emea: reading the organization", "cannot reach the service at http://127.0.0.1:9", "check targets[1].baseURL"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := exampleDir(t)
			if err := os.WriteFile(filepath.Join(dir, "wrong-secret"), []byte("not-the-secret\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			s := startMultiSim(t, dir, "sim/orgs.yaml", umsim.Options{})
			cfg := configFor(t, dir, "multiorg", s.url, tt.replace...)
			r := runBinary(t, nil, "sync", "--config", cfg)
			if r.code != exitError {
				t.Fatalf("sync: exit %d, want %d\n%s\n%s", r.code, exitError, r.stdout, r.stderr)
			}
			for _, want := range tt.want {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("the error lacks %q:\n%s", want, r.stderr)
				}
			}
			if strings.Contains(r.stderr, "organization main:") {
				t.Errorf("main is blamed:\n%s", r.stderr)
			}
			if _, found := groupsOf(s.Org(emeaOrg), "dave@example.com"); found {
				t.Error("emea was changed")
			}
			if g, _ := groupsOf(s.Org(mainOrg), "dave@example.com"); hasFold(g, "Design") != tt.mainSynced {
				t.Errorf("dave in main: %v, want synced: %v", g, tt.mainSynced)
			}
			if !tt.mainSynced {
				return
			}
			// validate --check-target checks every organization and lists
			// each one's problem.
			r = runBinary(t, nil, "validate", "--config", cfg, "--check-target")
			if r.code != exitError || !strings.Contains(r.stdout, "targets[0]: signed in") || !strings.Contains(r.stdout, "problem: targets[1]: ") ||
				!strings.Contains(r.stdout, "targets[1].") {
				t.Errorf("validate --check-target: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// TestMultiOrgUnknownOrganizationFlag: --org and --orgs naming no
// organization list those the configuration has; --org on plan is --orgs.
func TestMultiOrgUnknownOrganizationFlag(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	s := startMultiSim(t, dir, "sim/orgs.yaml", umsim.Options{})
	multi, single := configFor(t, dir, "multiorg", s.url), configFor(t, dir, "csv", s.url)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"users", "list", "--config", multi, "--org", "emae"}, `--org: no organization "emae" in ` + multi + "; its organizations (targets[].name) are main, emea"},
		{[]string{"plan", "--config", multi, "--orgs", "main,emae"}, `--orgs: no organization "emae" in ` + multi + "; its organizations (targets[].name) are main, emea"},
		{[]string{"users", "list", "--config", single, "--org", "emea"}, `--org: no organization "emea" in ` + single + ": it has a single target: (named default)"},
	} {
		if r := runBinary(t, nil, tc.args...); r.code != exitError || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, want 1 and %q\n%s", tc.args, r.code, tc.want, r.stderr)
		}
	}
	r := runBinary(t, nil, "products", "--config", multi, "--org", "emea")
	if r.code != exitOK || !strings.Contains(r.stdout, "Creative Cloud") || strings.Contains(r.stdout, "Document Cloud") {
		t.Errorf("products --org emea (emea has Creative Cloud only): exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = runBinary(t, nil, "plan", "--config", multi, "--org", "emea")
	if r.code != exitOK || strings.Contains(r.stdout, "organization main") || !strings.Contains(r.stdout, "== organization emea") {
		t.Errorf("plan --org emea: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
