package main

import (
	"bytes"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"net/http/httptest"
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
	t.Parallel()
	dir, inc := incumbentDir(t, incumbentFiles)
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
	t.Parallel()
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

// incumbentDir copies the examples into a new directory and writes the
// incumbent's files into its folder incumbent, with the simulator's key
// as private.key; it returns both.
func incumbentDir(t *testing.T, files map[string]string) (dir, inc string) {
	t.Helper()
	return incumbentDirIn(t, exampleDir(t), files)
}

// incumbentDirIn is incumbentDir in the examples' copy dir.
func incumbentDirIn(t *testing.T, dir string, files map[string]string) (string, string) {
	t.Helper()
	inc := filepath.Join(dir, "incumbent")
	if err := os.Mkdir(inc, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		writeTestFile(t, filepath.Join(inc, name), text)
	}
	key, err := os.ReadFile(filepath.Join(dir, "sim", "demo-private-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(inc, "private.key"), string(key))
	return dir, inc
}

func writeTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// pointAtSim rewrites the migrated configuration at path to use the
// simulator at url, as the walk-through's trial run does.
func pointAtSim(t *testing.T, path, url string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, path, strings.NewReplacer("https://usermanagement.adobe.io", url, "https://ims-na1.adobelogin.com", url).Replace(string(data)))
}

// TestMigrateTestModeMustBeAccepted: an incumbent run in test mode (-t)
// migrates to a configuration that warns at its top that sync applies,
// and migrate exits 1 until the difference is accepted; accepted, the
// configuration's header records it and a plan runs.
func TestMigrateTestModeMustBeAccepted(t *testing.T) {
	t.Parallel()
	dir, inc := incumbentDir(t, incumbentFiles)
	out := filepath.Join(inc, "orgsync.yaml")
	env := []string{"ORGSYNC_CLIENT_SECRET=demo-client-secret-not-a-real-secret"}
	args := []string{"migrate", filepath.Join(inc, "user-sync-config.yml"), "--out", out, "--flags", "--process-groups --connector csv users.csv -t"}
	r := runBinary(t, env, args...)
	data, _ := os.ReadFile(out)
	if r.code != exitError || !strings.Contains(r.stdout, "1 difference(s) to accept before use") || !strings.Contains(r.stdout, "! to accept: applies changes the incumbent would not") ||
		!strings.Contains(string(data), "# TEST MODE:") || !strings.Contains(string(data), "# NOT READY: 1 difference(s) not accepted yet") {
		t.Fatalf("migrate -t: exit %d\n%s\n%s\n%s", r.code, r.stdout, r.stderr, data)
	}
	r = runBinary(t, env, append(args, "--accept-differences", "--force")...)
	data, _ = os.ReadFile(out)
	if r.code != exitOK || !strings.Contains(string(data), "# 1 difference(s) accepted with orgsync migrate --accept-differences") ||
		!strings.Contains(string(data), "#   - command line: -t: differs, applies changes the incumbent would not") {
		t.Fatalf("accepted: exit %d\n%s\n%s\n%s", r.code, r.stdout, r.stderr, data)
	}
	s := startSim(t, dir, umsim.Options{})
	pointAtSim(t, out, s.url)
	if r := runBinary(t, env, "plan", "--config", out); r.code != exitOK || !strings.Contains(r.stdout, "+ create ann@example.com") {
		t.Errorf("plan: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestMigrateLegacyEncryptedKey: the incumbent's key encrypted as its
// encrypt command writes it (the legacy PEM form, DES-EDE3-CBC) is used as
// it is, its passphrase from the environment like the other secrets.
func TestMigrateLegacyEncryptedKey(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for name, text := range incumbentFiles {
		files[name] = text
	}
	files["connector-umapi.yml"] = strings.Replace(files["connector-umapi.yml"], `priv_key_path: "private.key"`, "priv_key_path: \"encrypted.key\"\n  priv_key_pass: \"pass-not-a-real-secret\"", 1)
	dir, inc := incumbentDir(t, files)
	pemText, err := os.ReadFile(filepath.Join(dir, "sim", "demo-private-key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(pemText[bytes.Index(pemText, []byte("-----BEGIN")):])
	enc, err := x509.EncryptPEMBlock(rand.Reader, block.Type, block.Bytes, []byte("pass-not-a-real-secret"), x509.PEMCipher3DES) //nolint:staticcheck // the incumbent's form under test
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(inc, "encrypted.key"), string(pem.EncodeToMemory(enc)))
	out := filepath.Join(inc, "orgsync.yaml")
	env := []string{"ORGSYNC_CLIENT_SECRET=demo-client-secret-not-a-real-secret", "ORGSYNC_PRIVATE_KEY_PASSPHRASE=pass-not-a-real-secret"}
	r := runBinary(t, env, "migrate", filepath.Join(inc, "user-sync-config.yml"), "--out", out, "--flags", "--process-groups --users mapped --connector csv users.csv")
	if r.code != exitOK || !strings.Contains(r.stdout, "privateKeyPassphrase") {
		t.Fatalf("migrate: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	s := startSim(t, dir, umsim.Options{})
	pointAtSim(t, out, s.url)
	if r := runBinary(t, env, "plan", "--config", out); r.code != exitOK || !strings.Contains(r.stdout, "+ create ann@example.com") {
		t.Errorf("plan: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// incumbentMultiOrg is an incumbent setup with the simulator's two example
// organizations, served over TLS at SIMHOST: the primary and emea, whose
// frank is in no source and not in the primary, so that the incumbent
// never touches him.
var incumbentMultiOrg = map[string]string{
	"user-sync-config.yml": `
adobe_users:
  exclude_adobe_groups: [_org_admin]
  connectors:
    umapi:
      - connector-umapi.yml
      - emea: connector-umapi-emea.yml
directory_users:
  user_identity_type: federatedID
  default_country_code: US
  groups:
    - directory_group: eng
      adobe_groups: [Engineering]
    - directory_group: design
      adobe_groups: [Design, "emea::Design"]
limits:
  max_adobe_only_users: 50%
`,
	"connector-umapi.yml": incumbentFiles["connector-umapi.yml"] + simServer,
	"connector-umapi-emea.yml": `
enterprise:
  org_id: "5678EF01@AdobeOrg"
  client_id: "orgsync-demo-emea"
  client_secret: "demo-client-secret-not-a-real-secret"
  tech_acct_id: "demo-emea-tech@techacct.example.com"
  priv_key_path: "private.key"
` + simServer,
	"users.csv": `firstname,lastname,email,country,groups
Alice,Anders,alice@example.com,US,eng
Carol,Clark,carol@example.com,GB,design
Dave,Doe,dave@example.com,US,design
Ada,Admin,admin@example.com,US,design
`,
}

// simServer points a service connector at the simulator (its test
// certificate not verified, as ssl_verify: False says).
const simServer = `server:
  host: SIMHOST
  auth_host: SIMHOST
ssl_verify: False
`

// TestMigrateSecondaryOrganization: in a secondary organization the
// incumbent never touches a user who is not in the primary; the migrated
// configuration's plan leaves him alone there too, while it creates the
// directory's designers in both. The exclusion groups, which the
// incumbent checks in the primary only, are a difference to accept, and
// --check-target counts on the live plan whom it concerns: the primary's
// administrator, a designer who is in emea too, whom the incumbent leaves
// alone there and orgsync's plan gives emea's Design.
func TestMigrateSecondaryOrganization(t *testing.T) {
	t.Parallel()
	dir := exampleDir(t)
	seed, err := os.ReadFile(filepath.Join(dir, "sim", "orgs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	frank := "      - {email: frank@example.com"
	admin := "      - {email: admin@example.com, firstname: Ada, lastname: Admin, country: US, type: federatedID, groups: [All Apps]}\n"
	writeTestFile(t, filepath.Join(dir, "sim", "orgs-admin.yaml"), strings.Replace(string(seed), frank, admin+frank, 1))
	s := startMultiSim(t, dir, "sim/orgs-admin.yaml", umsim.Options{})
	tlsSim := httptest.NewTLSServer(s.Multi)
	t.Cleanup(tlsSim.Close)
	files := map[string]string{}
	for name, text := range incumbentMultiOrg {
		files[name] = strings.ReplaceAll(text, "SIMHOST", strings.TrimPrefix(tlsSim.URL, "https://"))
	}
	_, inc := incumbentDirIn(t, dir, files)
	out := filepath.Join(inc, "orgsync.yaml")
	env := []string{"ORGSYNC_CLIENT_SECRET=demo-client-secret-not-a-real-secret", "ORGSYNC_EMEA_CLIENT_SECRET=demo-client-secret-not-a-real-secret"}
	args := []string{"migrate", filepath.Join(inc, "user-sync-config.yml"), "--out", out, "--flags", "--process-groups --connector csv users.csv"}
	if r := runBinary(t, env, args...); r.code != exitError || !strings.Contains(r.stdout, "adobe_users.exclude_adobe_groups: differs, removes a protection") {
		t.Fatalf("migrate: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r := runBinary(t, env, append(args, "--accept-differences", "--force", "--check-target")...)
	if r.code != exitOK || !strings.Contains(r.stdout, "organization emea: the live plan changes 1 user(s) whom the incumbent leaves alone there (members of _org_admin in the primary organization): admin@example.com") {
		t.Fatalf("migrate --accept-differences --check-target: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = runBinary(t, env, "plan", "--config", out)
	mainPart, emeaPart, ok := strings.Cut(r.stdout, "== organization emea")
	if r.code != exitOK || !ok {
		t.Fatalf("plan: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	changed := func(part, user string) bool {
		for _, l := range strings.Split(part, "\n") {
			if (strings.HasPrefix(l, "~ ") || strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "! ")) && strings.Contains(l, user) {
				return true
			}
		}
		return false
	}
	if !strings.Contains(emeaPart, "+ create dave@example.com") || changed(emeaPart, "frank@example.com") || changed(emeaPart, "admin-emea@example.com") || !changed(emeaPart, "admin@example.com") {
		t.Errorf("emea's plan: want dave created, frank and emea's administrator left alone, and the difference counted (admin@example.com given Design):\n%s", emeaPart)
	}
	if !strings.Contains(mainPart, "+ create dave@example.com") || changed(mainPart, "admin@example.com") {
		t.Errorf("main's plan:\n%s", mainPart)
	}
}
