package migrate

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/config"
)

// The incumbent's test mode (invocation_defaults or -t) applies nothing:
// the migrated configuration says so at its top, the report calls it a
// difference that applies more, and migrate fails until it is accepted.
func TestTestModeIsNeverDroppedInSilence(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ main, flags, where string }{
		{mainWith("invocation_defaults:\n  test_mode: Yes\n"), "", "invocation_defaults.test_mode"},
		{mainWith(""), "-t", "command line: -t"},
		{mainWith("invocation_defaults:\n  test_mode: No\n"), "--test-mode", "command line: --test-mode"},
	} {
		res, cfg := migrateFiles(t, map[string]string{"user-sync-config.yml": c.main}, append([]string{"--connector", "csv", "users.csv"}, strings.Fields(c.flags)...)...)
		if cfg == nil {
			t.Fatalf("%s: does not load", c.where)
		}
		e := entry(t, res.Report, c.where)
		if e.Outcome != Differs || e.Risk != AppliesMore || !strings.Contains(e.Note, "orgsync sync and orgsync daemon apply") {
			t.Errorf("%s: %+v", c.where, e)
		}
		if !res.Report.Blocked() || !strings.Contains(string(res.Config), "# TEST MODE:") || !strings.Contains(string(res.Config), "orgsync sync and orgsync daemon APPLY") {
			t.Errorf("%s: blocked %v\n%s", c.where, res.Report.Blocked(), res.Config)
		}
	}
	res, _ := migrateFiles(t, map[string]string{"user-sync-config.yml": mainWith("invocation_defaults:\n  test_mode: No\n")}, "--connector", "csv", "users.csv")
	if e := entry(t, res.Report, "invocation_defaults.test_mode"); e.Outcome != Translated || strings.Contains(string(res.Config), "TEST MODE") {
		t.Errorf("test mode off: %+v\n%s", e, res.Config)
	}
}

// Each secondary organization gets a policy of its own that keeps the
// incumbent's behaviour there (users not in the primary never touched,
// no attribute updated); the exclusion groups, which the incumbent checks
// in the primary only, are a difference to accept.
func TestSecondaryOrganizationsKeepTheIncumbentsExclusions(t *testing.T) {
	t.Parallel()
	dir := fixtureDir(t, true)
	for name, text := range multiOrg {
		writeFile(t, filepath.Join(dir, name), text)
	}
	copyFile(t, "../../../examples/sim/demo-private-key.pem", filepath.Join(dir, "private.key"), false)
	res, path := migrateIn(t, dir)
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	main, org2 := cfg.Targets[0], cfg.Targets[1]
	if main.Policy != nil || org2.Policy == nil {
		t.Fatalf("policies: main %v, org2 %v", main.Policy, org2.Policy)
	}
	p := org2.Policy
	if p.UnmatchedUsers != "preserve" || len(p.UpdateAttributes) != 0 || strings.Join(p.Exclude.Groups, ",") != "_org_admin,Keep Out" ||
		len(p.Exclude.Usernames) != 2 || !p.CreateUserGroups || p.ReportFile != "" {
		t.Errorf("org2's policy %+v", p)
	}
	if cfg.Policy.UnmatchedUsers != "remove-groups" {
		t.Errorf("the primary's unmatchedUsers %q", cfg.Policy.UnmatchedUsers)
	}
	if e := entry(t, res.Report, "adobe_users.exclude_adobe_groups"); e.Outcome != Differs || e.Risk != RemovesProtection {
		t.Errorf("%+v", e)
	}
	if e := entry(t, res.Report, "adobe_users.connectors.umapi"); e.Outcome != Differs || e.Risk != Safe {
		t.Errorf("%+v", e)
	}
}

// A Python expression with a lookaround (or a backreference) in
// exclude_users has no equivalent: migrate writes a wider expression that
// protects every user the incumbent's protects, or, when it has none,
// says the protection is gone; either way migrate fails until accepted.
func TestLookaroundExclusionKeepsTheProtection(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pattern    string
		protected  []string // as Python matches the pattern (\A...\Z, ignoring case)
		unprotects bool     // no wider expression: the protection is gone
	}{
		{`(?!ann).*@example\.com`, []string{"bob@example.com", "b@example.com"}, false},
		{`admin.*(?<!\.bak)`, []string{"admin1", "ADMIN", "admin.bak2"}, false},
		{`(\w+)-\1@example\.com`, []string{"x-x@example.com", "ab-AB@example.com"}, false},
		{`svc-(?=[0-9])\w+`, []string{"svc-1a"}, false},
		{`(a)?(?(1)b|c)`, nil, true},
	} {
		main := strings.Replace(mainWith(""), "adobe_users:", "adobe_users:\n  exclude_users: ['"+strings.ReplaceAll(c.pattern, "'", "''")+"', 'keep-[0-9]+']", 1)
		res, cfg := migrateFiles(t, map[string]string{"user-sync-config.yml": main}, "--connector", "csv", "users.csv")
		if cfg == nil {
			t.Fatalf("%s: does not load", c.pattern)
		}
		e := entry(t, res.Report, "adobe_users.exclude_users")
		if e.Outcome != NoEquivalent || e.Risk != RemovesProtection || !res.Report.Blocked() {
			t.Errorf("%s: %+v", c.pattern, e)
		}
		var res2 []*regexp.Regexp
		for _, s := range cfg.Policy.Exclude.Usernames {
			res2 = append(res2, regexp.MustCompile(s))
		}
		protects := func(name string) bool {
			for _, re := range res2 {
				if re.MatchString(name) {
					return true
				}
			}
			return false
		}
		for _, name := range c.protected {
			if !protects(name) {
				t.Errorf("%s: %s, protected by the incumbent, is not by orgsync (%q)", c.pattern, name, cfg.Policy.Exclude.Usernames)
			}
		}
		if !protects("keep-42") || protects("ordinary@example.org") {
			t.Errorf("%s: the other expressions: %q", c.pattern, cfg.Policy.Exclude.Usernames)
		}
		if got := len(cfg.Policy.Exclude.Usernames); c.unprotects != (got == 1) || c.unprotects != strings.Contains(e.Note, "not protected") {
			t.Errorf("%s: %d expressions written, note %q", c.pattern, got, e.Note)
		}
	}
}

// A selection (--user-filter) whose lookaheads all stand at its start is
// written exactly as a filter expression; another has no equivalent and
// must be accepted (orgsync would select more users).
func TestLookaheadSelection(t *testing.T) {
	t.Parallel()
	res, cfg := migrateFiles(t, map[string]string{"user-sync-config.yml": mainWith("")}, "--connector", "csv", "users.csv", "--user-filter", `(?!bob).*@example\.com`)
	if cfg == nil {
		t.Fatal("does not load")
	}
	if e := entry(t, res.Report, `command line: --user-filter (?!bob).*@example\.com`); e.Outcome != Differs || e.Risk != Safe {
		t.Errorf("%+v", e)
	}
	if !strings.Contains(cfg.Sources[0].Filter, `!(user.username != "" ? user.username : user.email).matches("(?i)^(?:bob)")`) {
		t.Errorf("filter %q", cfg.Sources[0].Filter)
	}
	if c := res.Report.Check; !strings.Contains(strings.Join(c.Lines, "\n"), "left out by the filter expression") {
		t.Errorf("bob not left out: %q", c.Lines)
	}
	res, _ = migrateFiles(t, map[string]string{"user-sync-config.yml": mainWith("")}, "--connector", "csv", "users.csv", "--user-filter", `.*(?<!bob@example\.com)`)
	if e := entry(t, res.Report, `command line: --user-filter .*(?<!bob@example\.com)`); e.Outcome != NoEquivalent || e.Risk != AppliesMore {
		t.Errorf("%+v", e)
	}
}

// A misspelt key inside a list item (a mapping rule's, an additional
// group rule's) is an unknown setting, which makes migrate fail, as the
// incumbent refuses it; the item's other keys are still translated.
func TestUnknownKeysInListItems(t *testing.T) {
	t.Parallel()
	main := strings.Replace(mainWith(""), "      adobe_groups: [All Apps]", "      adobe_group: [All Apps]\n  additional_groups:\n    - source: 'ACL-(.+)'\n      targt: 'ACL-\\1'", 1)
	res, _ := migrateFiles(t, map[string]string{"user-sync-config.yml": main}, "--connector", "csv", "users.csv", "--process-groups")
	for _, where := range []string{"directory_users.groups[0].adobe_group", "directory_users.additional_groups[0].targt"} {
		if e := entry(t, res.Report, where); e.Outcome != Unknown || e.Risk != Refused {
			t.Errorf("%s: %+v", where, e)
		}
	}
	if e := entry(t, res.Report, "directory_users.groups[0].directory_group"); e.Outcome == Unknown {
		t.Errorf("the item's known key: %+v", e)
	}
	if !res.Report.Blocked() {
		t.Error("unknown keys do not make migrate fail")
	}
}

// The incumbent's encrypted private key (the legacy PEM form its encrypt
// command writes, here its own test key) is used as it is, with its
// passphrase from the same secret reference as any other.
func TestEncryptedKeyAsItIs(t *testing.T) {
	// Not parallel: the migrated configuration reads its secrets from environment variables (t.Setenv).
	conn := `
enterprise:
  org_id: "1234ABCD5678EF90@AdobeOrg"
  client_id: "0a1b2c3d4e5f60718293a4b5c6d7e8f9"
  client_secret: "p8e-not-a-real-secret-1"
  tech_acct_id: "abcdef0123456789@techacct.adobe.com"
  priv_key_path: encrypted.key
  priv_key_pass: "password"
`
	dir := t.TempDir()
	copyFile(t, "testdata/directory/users.csv", filepath.Join(dir, "users.csv"), false)
	copyFile(t, "../../../target/umapi/testdata/incumbent-encrypted.key", filepath.Join(dir, "encrypted.key"), false)
	writeFile(t, filepath.Join(dir, "user-sync-config.yml"), mainWith(""))
	writeFile(t, filepath.Join(dir, "connector-umapi.yml"), conn)
	t.Setenv("ORGSYNC_CLIENT_SECRET", "p8e-not-a-real-secret-1")
	for pass, problem := range map[string]string{"password": "", "wrong": "cannot decrypt the key with privateKeyPassphrase"} {
		t.Setenv("ORGSYNC_PRIVATE_KEY_PASSPHRASE", pass)
		res, _ := migrateIn(t, dir, "--connector", "csv", "users.csv")
		c := res.Report.Check
		if problem == "" && (!c.OK() || len(c.ToDo) != 0) || problem != "" && !strings.Contains(strings.Join(c.Problems, "\n"), problem) {
			t.Errorf("passphrase %q: problems %q, to do %q", pass, c.Problems, c.ToDo)
		}
		if text := reportText(res.Report); strings.Contains(text, "pkcs8") || strings.Contains(text, "convert") || strings.Contains(text, "password") {
			t.Errorf("the report asks for a conversion or shows the passphrase:\n%s", text)
		}
	}
}

// The incumbent's example CSV file, whose rows are short, is read as the
// incumbent reads it (the migrated source has shortRows: empty), and the
// published hook reads columns the file may lack: with the example file,
// and with a file without the hook's columns, orgsync wants the users the
// incumbent wants.
func TestIncumbentCSVFilesAsTheyAre(t *testing.T) {
	t.Parallel()
	example, err := os.ReadFile("testdata/csv/users-file-with-custom-attributes-and-mappings.csv")
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"example":           string(example),
		"without bc, subco": "firstname,lastname,email,country,groups\nAnn,Lee,ann@example.com,US,Adobe_All_Apps_Users\nBo,Roe,bo@example.com,FR,\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := fixtureDir(t, true)
			enableInMain(t, dir, "extension-config.yml")
			writeFile(t, filepath.Join(dir, "people.csv"), text)
			flags := []string{"--connector", "csv", "people.csv", "--process-groups", "--users", "all"}
			want := equivalent(t, dir, flags, nil)
			res, path := migrateIn(t, dir, flags...)
			if !res.Report.Check.OK() {
				t.Errorf("check: %q", res.Report.Check.Problems)
			}
			if data, _ := os.ReadFile(path); !strings.Contains(string(data), "shortRows: empty") || !strings.Contains(string(data), `user.attributes.?bc.orValue("")`) {
				t.Errorf("the configuration:\n%s", data)
			}
			if name == "example" && strings.Join(want[""]["hook1@example.net|hook1@example.net"].Groups, ",") != "company 1 users" {
				t.Errorf("the incumbent wants hook1 with %v: the case tests nothing", want[""]["hook1@example.net|hook1@example.net"])
			}
		})
	}
}

// max_adobe_only_users: 0, and a missing limit, are written out with
// what orgsync then does: no default is left to apply in silence.
func TestLimitDefaultsWrittenOut(t *testing.T) {
	t.Parallel()
	main := strings.Replace(mainWith(""), "max_adobe_only_users: 200", "max_adobe_only_users: 0", 1)
	res, cfg := migrateFiles(t, map[string]string{"user-sync-config.yml": main}, "--connector", "csv", "users.csv", "--process-groups", "--adobe-only-user-action", "remove")
	if cfg == nil || cfg.Policy.UnmatchedUsers != "preserve" {
		t.Fatalf("does not load, or acts on users only in the organization:\n%s", res.Config)
	}
	if !strings.Contains(string(res.Config), "maxRemovals: '10%'  # orgsync's default, written") {
		t.Errorf("maxRemovals not written:\n%s", res.Config)
	}
	if e := entry(t, res.Report, "limits.max_adobe_only_users"); !strings.Contains(strings.Join(e.To, ","), "safety.maxRemovals") || !strings.Contains(e.Note, "10%") {
		t.Errorf("%+v", e)
	}
	main = strings.Replace(mainWith(""), "limits:\n  max_adobe_only_users: 200\n", "", 1)
	res, cfg = migrateFiles(t, map[string]string{"user-sync-config.yml": main}, "--connector", "csv", "users.csv")
	if cfg == nil || cfg.Safety.MaxRemovals.String() != "10%" || !strings.Contains(string(res.Config), "maxRemovals:") {
		t.Fatalf("missing limit:\n%s", res.Config)
	}
	if e := entry(t, res.Report, "limits.max_adobe_only_users (not set)"); e.Risk != Refused {
		t.Errorf("%+v", e)
	}
}

// The defaults of the incumbent that orgsync's defaults would change are
// written out, each line saying so.
func TestIncumbentDefaultsWrittenOut(t *testing.T) {
	t.Parallel()
	main := strings.Replace(strings.Replace(mainWith(""), "  user_identity_type: federatedID\n", "", 1), "  default_country_code: US\n", "", 1)
	res, cfg := migrateFiles(t, map[string]string{"user-sync-config.yml": main}, "--connector", "csv", "users.csv")
	if cfg == nil {
		t.Fatalf("does not load:\n%s", res.Config)
	}
	for _, want := range []string{
		"defaultType: enterpriseID  # the incumbent's default identity type",
		"unmatchedUsers: preserve  # from the incumbent's default",
		"updateAttributes: []  # update_user_info is off (the incumbent's default)",
		"maxRemovals: 200  # from",
		"delimiter: ','  # the incumbent's delimiter for a .csv file",
		"shortRows: empty  #",
	} {
		if !strings.Contains(string(res.Config), want) {
			t.Errorf("%q not written:\n%s", want, res.Config)
		}
	}
}

// Sign Sync's files and the incumbent's other files given as the main file
// are refused with one line saying what they are.
func TestOtherFilesRefused(t *testing.T) {
	t.Parallel()
	for file, want := range map[string]string{
		"testdata/sign/sign-sync-config.yml":             "is a Sign Sync configuration",
		"testdata/sign/connector-sign.yml":               "is a Sign Sync connector file",
		"testdata/fixture/sign-sync-config.yml":          "is a Sign Sync configuration",
		"testdata/fixture/connector-sign.yml":            "is a Sign Sync connector file",
		"testdata/published/connector-umapi.yml":         "is a service connector file",
		"testdata/published/connector-ldap.yml":          "is an LDAP connector file",
		"testdata/published/connector-okta.yml":          "is an Okta connector file",
		"testdata/published/connector-csv.yml":           "is a CSV connector file",
		"testdata/published/extension-config.yml":        "is an extension file",
		"testdata/published/connector-adobe-console.yml": "is a service connector file",
		"testdata/csv/users-file.csv":                    "holds no settings",
	} {
		_, err := Migrate(file, Options{})
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", file, err, want)
		}
		if strings.Contains(want, "Sign Sync") && !strings.Contains(err.Error(), "out of scope") {
			t.Errorf("%s: %v", file, err)
		}
	}
}

// The incumbent's own test fixture (every key at its value or null)
// migrates with every setting accounted for and none unknown.
func TestIncumbentTestFixture(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"user-sync-config.yml", "connector-ldap.yml", "connector-umapi.yml", "extension-config.yml"} {
		copyFile(t, filepath.Join("testdata/fixture", name), filepath.Join(dir, name), false)
	}
	res, err := Migrate(filepath.Join(dir, "user-sync-config.yml"), Options{Out: filepath.Join(dir, "orgsync.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Report.Entries {
		if e.Outcome == Unknown {
			t.Errorf("unknown: %+v", e)
		}
	}
	if len(res.Report.Entries) < 30 {
		t.Errorf("%d entries: not every setting accounted for", len(res.Report.Entries))
	}
}

// With --keyring wincred (the default on Windows, where the incumbent's
// keyring is Credential Manager), each keyring entry becomes a wincred
// reference with the target and user the incumbent's keyring reads: the
// secure_*_key value and the organization id, the LDAP user or the Okta
// host.
func TestKeyringEntriesAsWincred(t *testing.T) {
	t.Parallel()
	ldap := "host: ldaps://dc1.corp.example.org\nbase_dn: dc=corp,dc=example,dc=org\nusername: svc-ust@corp.example.org\nsecure_password_key: ust_ldap\n"
	main := withConnector("ldap", "")
	umapi := strings.Replace(baseFiles["connector-umapi.yml"], `client_secret: "p8e-not-a-real-secret-1"`, "secure_client_secret_key: ust secret", 1)
	res, _ := migrateFilesWith(t, map[string]string{"user-sync-config.yml": main, "connector-ldap.yml": ldap, "connector-umapi.yml": umapi}, Options{Keyring: KeyringWincred})
	for _, want := range []string{
		"clientSecret: {wincred: ust secret, user: 1234ABCD5678EF90@AdobeOrg}",
		"password: {wincred: ust_ldap, user: svc-ust@corp.example.org}",
	} {
		if !strings.Contains(string(res.Config), want) {
			t.Errorf("%q not in\n%s", want, res.Config)
		}
	}
	if s := strings.Join(res.Report.Secrets, "\n"); !strings.Contains(s, `Windows Credential Manager (the generic credential "ust secret" of user "1234ABCD5678EF90@AdobeOrg", or "1234ABCD5678EF90@AdobeOrg@ust secret"`) ||
		!strings.Contains(s, "per machine and per user") {
		t.Errorf("secrets section: %s", s)
	}
	// The check reads no Credential Manager outside Windows: it says where
	// the secret is checked, as it does of a command's.
	if c := res.Report.Check; runtime.GOOS != "windows" && (strings.Contains(strings.Join(c.Problems, "\n"), "Credential Manager") ||
		!strings.Contains(strings.Join(c.Lines, "\n"), `auth.clientSecret: Windows Credential Manager (Windows credential ust secret of user 1234ABCD5678EF90@AdobeOrg) gives it: checked on Windows (orgsync validate there reads it)`)) {
		t.Errorf("the check of the wincred references: problems %q, lines %q", c.Problems, c.Lines)
	}
	if _, err := Migrate("testdata/published/user-sync-config.yml", Options{Keyring: "vault"}); err == nil || !strings.Contains(err.Error(), "--keyring") {
		t.Errorf("an unknown keyring: %v", err)
	}
}

// The incumbent's published CSV inputs are read as the incumbent reads
// them: its users file as the source (--users file), its removal list as
// the users to act on (--adobe-only-user-list).
func TestIncumbentCSVInputs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ file, flags, want string }{
		{"users-file.csv", "--users file users-file.csv --process-groups", "the file sources were read: 3 desired user(s)"},
		{"users-file-with-custom-attributes-and-mappings.csv", "--users file users-file-with-custom-attributes-and-mappings.csv", "the file sources were read: 3 desired user(s)"},
		{"remove-list.csv", "--connector csv users.csv --adobe-only-user-list remove-list.csv --adobe-only-user-action remove", "the file sources were read"},
	} {
		data, err := os.ReadFile(filepath.Join("testdata/csv", c.file))
		if err != nil {
			t.Fatal(err)
		}
		res, cfg := migrateFiles(t, map[string]string{"user-sync-config.yml": mainWith(""), c.file: string(data)}, strings.Fields(c.flags)...)
		if cfg == nil || !res.Report.Check.OK() || !strings.Contains(strings.Join(res.Report.Check.Lines, "\n"), c.want) {
			t.Errorf("%s: problems %q, lines %q\n%s", c.file, res.Report.Check.Problems, res.Report.Check.Lines, res.Config)
		}
	}
}
