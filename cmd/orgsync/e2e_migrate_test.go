package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/target/umsim"
)

// incumbentFiles are an incumbent setup as docs/migrating.md walks
// through it: the main file, its service connector (the deprecated JWT
// sign-in with a key file) and a CSV file of users, for the example
// organization of the simulator.
var incumbentFiles = map[string]string{
	"user-sync-config.yml": `
adobe_users:
  exclude_identity_types: [adobeID]
  exclude_adobe_groups: [_org_admin]
  connectors:
    umapi: connector-umapi.yml
directory_users:
  user_identity_type: federatedID
  default_country_code: US
  groups:
    - directory_group: eng
      adobe_groups: [Engineering, Acrobat Pro]
    - directory_group: design
      adobe_groups: [Design]
limits:
  max_adobe_only_users: 10%
logging:
  log_to_file: False
  console_log_level: info
`,
	"connector-umapi.yml": `
enterprise:
  org_id: "1234ABCD@AdobeOrg"
  client_id: "orgsync-demo"
  client_secret: "demo-client-secret-not-a-real-secret"
  tech_acct_id: "demo-tech@techacct.example.com"
  priv_key_path: "private.key"
`,
	"users.csv": `firstname,lastname,email,country,groups,type,username,domain
Ann,Lee,ann@example.com,US,eng,,,
Bob,Stone,bob@example.com,DE,"eng,design",,,
Cy,Ng,cy@example.com,,sales,,,
`,
}

// TestMigrateToFirstPlan walks from an incumbent setup to orgsync's first
// plan: migrate (the configuration written, the report printed, the check
// passed), then validate and plan against the simulator.
func TestMigrateToFirstPlan(t *testing.T) {
	dir := exampleDir(t)
	inc := filepath.Join(dir, "incumbent")
	if err := os.Mkdir(inc, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, text := range incumbentFiles {
		if err := os.WriteFile(filepath.Join(inc, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	key, err := os.ReadFile(filepath.Join(dir, "sim", "demo-private-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(inc, "private.key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(inc, "orgsync.yaml")
	env := []string{"ORGSYNC_CLIENT_SECRET=demo-client-secret-not-a-real-secret"}
	r := runBinary(t, env, "migrate", filepath.Join(inc, "user-sync-config.yml"), "--out", out,
		"--flags", "./user-sync --process-groups --users mapped --connector csv users.csv --adobe-only-user-action remove")
	if r.code != exitOK {
		t.Fatalf("migrate: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"command line: --adobe-only-user-action remove", "translated -> policy.unmatchedUsers",
		"the configuration loads", "the file sources were read: 2 desired user(s), 1 left out by the filter expression",
		"enterprise.client_secret: (a secret: not shown)", "wrote " + out,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, r.stdout)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data)+r.stdout, "demo-client-secret-not-a-real-secret") {
		t.Errorf("the client secret was copied")
	}
	// Point the migrated configuration at the simulator, as the
	// walk-through's trial run does, and go on to the first plan.
	s := startSim(t, dir, umsim.Options{})
	text := strings.NewReplacer("https://usermanagement.adobe.io", s.url, "https://ims-na1.adobelogin.com", s.url).Replace(string(data))
	if err := os.WriteFile(out, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runBinary(t, env, "validate", "--config", out); r.code != exitOK {
		t.Fatalf("validate: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// Ann is created; Bob keeps his last name (the incumbent updates no
	// attribute without update_user_info); Cy is in no mapped group; the
	// users in no source are removed, as adobe_only_user_action remove
	// says, but held back by the safety limit from max_adobe_only_users.
	r = runBinary(t, env, "plan", "--config", out)
	if r.code != exitOK || !strings.Contains(r.stdout, "+ create ann@example.com") || strings.Contains(r.stdout, "bob@example.com") ||
		strings.Contains(r.stdout, "cy@example.com") || !strings.Contains(r.stdout, "! withheld - remove mallory@example.com") {
		t.Errorf("plan: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestMigrateReportsWhatDoesNotLoad: the configuration goes to standard
// output, the report to standard error; a configuration that does not
// load (the incumbent example's placeholders) exits 1 with the problems.
func TestMigrateReportsWhatDoesNotLoad(t *testing.T) {
	dir := t.TempDir()
	for name, text := range incumbentFiles {
		if name == "connector-umapi.yml" {
			text = strings.Replace(text, `"1234ABCD@AdobeOrg"`, `"Org ID goes here"`, 1)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runInProcess("migrate", filepath.Join(dir, "user-sync-config.yml"), "--flags", "--connector csv users.csv")
	if code != exitError || !strings.HasPrefix(stdout, "# orgsync configuration migrated") ||
		!strings.Contains(stderr, `target.orgId (line 6): "Org ID goes here" is not an organization id`) ||
		!strings.Contains(stderr, "is the placeholder of the incumbent's example file") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if code, _, stderr := runInProcess("migrate", filepath.Join(dir, "user-sync-config.yml"), "--flags", "--colour blue"); code != exitError || !strings.Contains(stderr, "--colour is not an option") {
		t.Errorf("bad --flags: exit %d: %s", code, stderr)
	}
}
