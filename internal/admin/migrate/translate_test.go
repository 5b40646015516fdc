package migrate

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/config"
)

// baseFiles are a small incumbent configuration from a CSV file, which the
// cases below change key by key.
var baseFiles = map[string]string{
	"connector-umapi.yml": `
authentication_method: oauth
enterprise:
  org_id: "1234ABCD5678EF90@AdobeOrg"
  client_id: "0a1b2c3d4e5f60718293a4b5c6d7e8f9"
  client_secret: "p8e-not-a-real-secret-1"
`,
}

// mainWith is a main file from a CSV file with extra top-level text.
func mainWith(extra string) string {
	return `
adobe_users:
  connectors:
    umapi: connector-umapi.yml
directory_users:
  user_identity_type: federatedID
  default_country_code: US
  groups:
    - directory_group: Adobe_All_Apps_Users
      adobe_groups: [All Apps]
limits:
  max_adobe_only_users: 200
` + extra
}

// migrateFiles migrates the incumbent files (the base files with files
// over them) with flags, and loads the result (nil when it does not load).
func migrateFiles(t *testing.T, files map[string]string, flags ...string) (*Result, *config.Config) {
	t.Helper()
	return migrateFilesWith(t, files, Options{}, flags...)
}

// migrateFilesWith is migrateFiles with options.
func migrateFilesWith(t *testing.T, files map[string]string, opt Options, flags ...string) (*Result, *config.Config) {
	t.Helper()
	dir := t.TempDir()
	copyFile(t, "testdata/directory/users.csv", filepath.Join(dir, "users.csv"), false)
	for name, text := range baseFiles {
		writeFile(t, filepath.Join(dir, name), text)
	}
	for name, text := range files {
		writeFile(t, filepath.Join(dir, name), text)
	}
	res, path := migrateInWith(t, dir, opt, flags...)
	cfg, err := config.Load(path)
	if err != nil {
		t.Logf("does not load: %v\n%s", err, res.Config)
		return res, nil
	}
	return res, cfg
}

// entry returns the report's entry whose place ends with where.
func entry(t *testing.T, r *Report, where string) Entry {
	t.Helper()
	for _, e := range r.Entries {
		if strings.HasSuffix(e.Where, where) {
			return e
		}
	}
	t.Fatalf("no report entry for %s:\n%s", where, reportText(r))
	return Entry{}
}

// TestUnmatchedUsers checks what becomes of adobe_only_user_action with
// and without group processing, and of the options that limit it.
func TestUnmatchedUsers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		flags  string
		policy string
		report string // policy.reportFile's name, if any
		scope  string // scope.usersFile's name, if any
		o      Outcome
	}{
		{"--adobe-only-user-action preserve", "preserve", "", "", Translated},
		{"--adobe-only-user-action preserve --process-groups", "remove-groups", "", "", Translated},
		{"--adobe-only-user-action exclude --process-groups", "preserve", "", "", Translated},
		{"--adobe-only-user-action remove-adobe-groups --process-groups", "remove-groups", "", "", Differs},
		{"--adobe-only-user-action remove-vendor-groups", "remove-groups", "", "", Differs},
		{"--adobe-only-user-action remove --process-groups", "remove", "", "", Translated},
		{"--adobe-only-user-action delete", "delete", "", "", Translated},
		{"--adobe-only-user-action delete --adobe-users mapped", "remove-groups", "", "", Differs},
		{"--adobe-only-user-action write-file strays.csv --process-groups", "remove-groups", "strays.csv", "", Translated},
		{"--adobe-only-user-action write-file strays.csv", "preserve", "strays.csv", "", Translated},
		{"--adobe-only-user-action remove --strategy push --process-groups", "preserve", "", "", Translated},
		{"--adobe-only-user-action remove --adobe-only-user-list users.csv", "remove", "", "users.csv", Translated},
	} {
		t.Run(c.flags, func(t *testing.T) {
			res, cfg := migrateFiles(t, map[string]string{"user-sync-config.yml": mainWith("")}, strings.Fields(c.flags+" --connector csv users.csv")...)
			if cfg == nil {
				t.Fatal("does not load")
			}
			if cfg.Policy.UnmatchedUsers != c.policy {
				t.Errorf("unmatchedUsers = %q, want %q", cfg.Policy.UnmatchedUsers, c.policy)
			}
			if got := filepath.Base(cfg.Policy.ReportFile); c.report != "" && got != c.report || c.report == "" && cfg.Policy.ReportFile != "" {
				t.Errorf("reportFile = %q, want %q", cfg.Policy.ReportFile, c.report)
			}
			if got := filepath.Base(cfg.Scope.UsersFile); c.scope != "" && got != c.scope || c.scope == "" && cfg.Scope.UsersFile != "" {
				t.Errorf("usersFile = %q, want %q", cfg.Scope.UsersFile, c.scope)
			}
			for _, e := range res.Report.Entries {
				if strings.HasPrefix(e.Where, "command line: --adobe-only-user-action") && e.Outcome != c.o {
					t.Errorf("outcome %q, want %q (%s)", e.Outcome, c.o, e.Note)
				}
			}
		})
	}
}

// TestLimits checks max_adobe_only_users: a count, a percentage (whole
// in orgsync) and 0, which stops the incumbent from acting at all.
func TestLimits(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ limit, maxRemovals, policy string }{
		{"200", "200", "remove"},
		{"10%", "10%", "remove"},
		{`"12.5%"`, "12%", "remove"},
		{"0", "10%", "preserve"},
		{`"0%"`, "10%", "preserve"},
	} {
		t.Run(c.limit, func(t *testing.T) {
			main := strings.Replace(mainWith(""), "max_adobe_only_users: 200", "max_adobe_only_users: "+c.limit, 1)
			_, cfg := migrateFiles(t, map[string]string{"user-sync-config.yml": main}, "--connector", "csv", "users.csv", "--adobe-only-user-action", "remove")
			if cfg == nil {
				t.Fatal("does not load")
			}
			if cfg.Safety.MaxRemovals.String() != c.maxRemovals || cfg.Policy.UnmatchedUsers != c.policy {
				t.Errorf("maxRemovals %s, unmatchedUsers %s; want %s, %s", cfg.Safety.MaxRemovals, cfg.Policy.UnmatchedUsers, c.maxRemovals, c.policy)
			}
		})
	}
}

// TestVendorSpelling checks that the keys and values spelt with "vendor",
// as this project's specification spells them, read as the incumbent's.
func TestVendorSpelling(t *testing.T) {
	t.Parallel()
	main := `
vendor_users:
  exclude_identity_types: [vendorID]
  exclude_vendor_groups: [_org_admin]
  connectors:
    umapi: connector-umapi.yml
directory_users:
  user_identity_type: vendorID
  groups:
    - directory_group: Adobe_All_Apps_Users
      vendor_groups: [All Apps]
limits:
  max_vendor_only_users: 5
invocation_defaults:
  vendor_only_user_action: remove
  process_groups: Yes
`
	umapi := strings.Replace(baseFiles["connector-umapi.yml"], "@AdobeOrg", "@VendorOrg", 1)
	res, cfg := migrateFiles(t, map[string]string{"user-sync-config.yml": main, "connector-umapi.yml": umapi}, "--connector", "csv", "users.csv")
	if cfg == nil {
		t.Fatal("does not load")
	}
	checkReport(t, res)
	if cfg.Policy.Exclude.IdentityTypes[0] != "vendorID" || cfg.Policy.Exclude.Groups[0] != "_org_admin" || cfg.Safety.MaxRemovals.String() != "5" ||
		cfg.Policy.UnmatchedUsers != "remove" || cfg.Mapping[0].Targets[0] != "All Apps" || cfg.Primary().OrgID != "1234ABCD5678EF90@VendorOrg" {
		t.Errorf("vendor spelling not read as the incumbent's:\n%s", res.Config)
	}
}

// TestUnknownSettingsReported checks that a setting migrate does not know
// is reported, never dropped in silence, wherever it is.
func TestUnknownSettingsReported(t *testing.T) {
	t.Parallel()
	main := mainWith("colour: blue\n") + "invocation_defaults:\n  users: all\n"
	conn := baseFiles["connector-umapi.yml"] + "  frobnicate: true\n  client_secert: typo-not-a-real-secret\n"
	res, _ := migrateFiles(t, map[string]string{"user-sync-config.yml": main, "connector-umapi.yml": conn}, "--connector", "csv", "users.csv")
	for _, where := range []string{"colour", "enterprise.frobnicate", "enterprise.client_secert"} {
		if e := entry(t, res.Report, where); e.Outcome != Unknown {
			t.Errorf("%s: outcome %q, want unknown", where, e.Outcome)
		}
	}
	if strings.Contains(reportText(res.Report), "typo-not-a-real-secret") {
		t.Errorf("the report shows the value of a misspelt secret key")
	}
}

// TestSecrets checks where each kind of secret goes: plain text to an
// environment variable (the value never copied), the OS keyring to the
// keyring command for the same entry, with a note each.
func TestSecrets(t *testing.T) {
	t.Parallel()
	ldap := `
host: ldaps://dc1.corp.example.org
base_dn: dc=corp,dc=example,dc=org
username: svc-ust@corp.example.org
secure_password_key: ust_ldap
`
	main := strings.Replace(mainWith(""), "  groups:", "  connectors:\n    ldap: connector-ldap.yml\n  groups:", 1)
	umapi := strings.Replace(baseFiles["connector-umapi.yml"], `client_secret: "p8e-not-a-real-secret-1"`, "secure_client_secret_key: ust_secret", 1)
	res, cfg := migrateFiles(t, map[string]string{"user-sync-config.yml": main, "connector-ldap.yml": ldap, "connector-umapi.yml": umapi})
	if cfg == nil {
		t.Fatal("does not load")
	}
	if got := strings.Join(cfg.Primary().Auth.ClientSecret.Exec, " "); got != "keyring get ust_secret 1234ABCD5678EF90@AdobeOrg" {
		t.Errorf("client secret %q", got)
	}
	if !strings.Contains(string(res.Config), "password: {exec: [keyring, get, ust_ldap, svc-ust@corp.example.org]}") {
		t.Errorf("LDAP password not from the keyring:\n%s", res.Config)
	}
	if len(res.Report.Secrets) != 2 || !strings.Contains(res.Report.Secrets[0], "keyring get ust_secret") {
		t.Errorf("secrets section: %q", res.Report.Secrets)
	}
	plain, cfg2 := migrateFiles(t, map[string]string{"user-sync-config.yml": mainWith("")}, "--connector", "csv", "users.csv")
	if cfg2.Primary().Auth.ClientSecret.Env != "ORGSYNC_CLIENT_SECRET" || !strings.Contains(plain.Report.Secrets[0], "ORGSYNC_CLIENT_SECRET") {
		t.Errorf("plain secret: %+v, %q", cfg2.Primary().Auth.ClientSecret, plain.Report.Secrets)
	}
	checkReport(t, plain)
}

// TestLDAPBinds checks the authentication methods of the LDAP connector.
func TestLDAPBinds(t *testing.T) {
	t.Parallel()
	main := strings.Replace(mainWith(""), "  groups:", "  connectors:\n    ldap: connector-ldap.yml\n  groups:", 1)
	for _, c := range []struct{ conn, want string }{
		{"username: CORP\\svc-ust\npassword: x-not-a-real-secret\nauthentication_method: NTLM\n", "bind: ntlm"},
		{"authentication_method: kerberos\npassword: x-not-a-real-secret\n", "bind: kerberos"},
		{"authentication_method: Anonymous\nusername: cn=ignored,dc=corp,dc=example,dc=org\n", "filter"},
		{"# no username: anonymous\n", "filter"},
		{"username: cn=svc,dc=corp,dc=example,dc=org\npassword: x-not-a-real-secret\nrequire_tls_cert: True\nhost: ldap://dc1.corp.example.org\n", "startTLS: true"}, // host given twice: the later wins
	} {
		conn := "host: ldaps://dc1.corp.example.org\nbase_dn: dc=corp,dc=example,dc=org\n" + c.conn
		res, _ := migrateFiles(t, map[string]string{"user-sync-config.yml": main, "connector-ldap.yml": conn})
		if !strings.Contains(string(res.Config), c.want) {
			t.Errorf("%q: %q not in\n%s", c.conn, c.want, res.Config)
		}
		for _, e := range res.Report.Entries {
			if e.Outcome == Unknown {
				t.Errorf("%q: unknown %+v", c.conn, e)
			}
		}
		if strings.Contains(string(res.Config)+reportText(res.Report), "x-not-a-real-secret") {
			t.Errorf("%q: the password was copied", c.conn)
		}
		for i, line := range strings.Split(strings.TrimSpace(conn), "\n") { // every setting accounted for, each with its line
			if key, _, _ := strings.Cut(line, ":"); !strings.HasPrefix(line, "#") && !strings.Contains(reportText(res.Report), fmt.Sprintf("connector-ldap.yml:%d %s", i+1, key)) {
				t.Errorf("%q: the report does not account for line %d (%s):\n%s", c.conn, i+1, line, reportText(res.Report))
			}
		}
	}
}

// TestLDAPMembership checks how the incumbent's group filters become
// orgsync's membership modes.
func TestLDAPMembership(t *testing.T) {
	t.Parallel()
	main := strings.Replace(mainWith(""), "  groups:", "  connectors:\n    ldap: connector-ldap.yml\n  groups:", 1)
	for _, c := range []struct{ conn, want string }{
		{`group_member_filter_format: "(memberOf:1.2.840.113556.1.4.1941:={group_dn})"`, "flavor: activedirectory"},
		{`group_member_filter_format: "(memberOf:1.2.840.113556.1.4.1941:={group_dn})"`, "membership: [member]"},
		{`group_member_filter_format: "(memberOf={group_dn})"`, "nested: false"},
		{`group_filter_format: "(&(objectClass=group)(sAMAccountName={group}))"`, "nameAttribute: sAMAccountName"},
		{`group_filter_format: "(&(objectClass=group)(sAMAccountName={group}))"`, "filter: '(objectClass=group)'"},
		{"two_steps_lookup:\n  group_member_attribute_name: uniqueMember\n  nested_group: True", "membership: [uniqueMember]"},
	} {
		conn := "host: ldaps://dc1.corp.example.org\nbase_dn: dc=corp,dc=example,dc=org\n" + c.conn + "\n"
		res, cfg := migrateFiles(t, map[string]string{"user-sync-config.yml": main, "connector-ldap.yml": conn})
		if cfg == nil || !strings.Contains(string(res.Config), c.want) {
			t.Errorf("%q: %q not in\n%s", c.conn, c.want, res.Config)
		}
	}
}

// TestOktaConnector checks connector-okta.yml: its host, token, user
// filter and the selection of the mapped groups' members (the only users
// the incumbent's Okta connector reads).
func TestOktaConnector(t *testing.T) {
	t.Parallel()
	main := strings.Replace(mainWith(""), "  groups:", "  connectors:\n    okta: connector-okta.yml\n  groups:", 1)
	okta := "host: example.okta.com\nsecure_api_token_key: ust_okta\nall_users_filter: 'user.status in (\"ACTIVE\", \"PASSWORD_EXPIRED\")'\n"
	res, cfg := migrateFiles(t, map[string]string{"user-sync-config.yml": main, "connector-okta.yml": okta}, "--connector", "okta", "--users", "mapped")
	if cfg == nil {
		t.Fatal("does not load")
	}
	for _, want := range []string{"orgURL: https://example.okta.com", "apiToken: {exec: [keyring, get, ust_okta, example.okta.com]}",
		"statuses: [ACTIVE, PASSWORD_EXPIRED]", `filter: 'directoryGroups.exists(g, g in ["Adobe_All_Apps_Users"])'`} {
		if !strings.Contains(string(res.Config), want) {
			t.Errorf("%q not in\n%s", want, res.Config)
		}
	}
}

// TestFlags checks the reading of the incumbent's command line.
func TestFlags(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		flags string
		err   string
	}{
		{"./user-sync --process-groups --users mapped -t", ""},
		{"user-sync sync --users=all --update-user-info", ""},
		{"--users", "needs a value"},
		{"--process-groups yes", "takes no value"},
		{"--colour blue", "not an option"},
		{"rm -rf", "not an option of the incumbent"},
	} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "user-sync-config.yml"), mainWith(""))
		_, err := Migrate(filepath.Join(dir, "user-sync-config.yml"), Options{Flags: strings.Fields(c.flags)})
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%q: error %v, want %q", c.flags, err, c.err)
		}
	}
}

// TestVersion1Refused checks that a configuration of the incumbent's first
// version is refused with what to do.
func TestVersion1Refused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "user-sync-config.yml"), "dashboard:\n  owning: dashboard-config.yml\n")
	_, err := Migrate(filepath.Join(dir, "user-sync-config.yml"), Options{})
	if err == nil || !strings.Contains(err.Error(), "version 1") {
		t.Errorf("error %v", err)
	}
}

// TestNotSelectedConnector checks that a connector the incumbent does not
// run with is reported, file and all, as not used.
func TestNotSelectedConnector(t *testing.T) {
	t.Parallel()
	main := strings.Replace(mainWith(""), "  groups:", "  connectors:\n    okta: connector-okta.yml\n  groups:", 1)
	res, cfg := migrateFiles(t, map[string]string{"user-sync-config.yml": main, "connector-okta.yml": "host: example.okta.com\napi_token: tok-not-a-real-secret\n"},
		"--connector", "csv", "users.csv")
	if cfg == nil || cfg.Sources[0].Kind() != "csv" {
		t.Fatal("the csv source is not the one written")
	}
	if e := entry(t, res.Report, "connector-okta.yml:2 api_token"); e.Outcome != NotUsed || e.Value != "(a secret: not shown)" {
		t.Errorf("%+v", e)
	}
}

// TestCountryUD checks that the incumbent's undefined country, UD, is
// left out: orgsync sends no country, which the service reads the same way.
func TestCountryUD(t *testing.T) {
	t.Parallel()
	main := strings.Replace(mainWith(""), "default_country_code: US", "default_country_code: UD", 1)
	res, cfg := migrateFiles(t, map[string]string{"user-sync-config.yml": main}, "--connector", "csv", "users.csv")
	if cfg == nil || strings.Contains(string(res.Config), "defaultCountry") {
		t.Errorf("UD written:\n%s", res.Config)
	}
	if e := entry(t, res.Report, "default_country_code"); e.Outcome != Differs {
		t.Errorf("%+v", e)
	}
}

// TestConnectorFileLists checks a connector given as a list of files,
// merged in order as the incumbent merges them (a later key wins, the
// overridden one reported), and the older extensions: form of the
// extension file.
func TestConnectorFileLists(t *testing.T) {
	t.Parallel()
	main := strings.Replace(mainWith("invocation_defaults:\n  process_groups: Yes\n"), "umapi: connector-umapi.yml", "umapi: [connector-umapi.yml, connector-umapi-override.yml]", 1)
	main = strings.Replace(main, "  groups:", "  extension: extension-old.yml\n  groups:", 1)
	override := "enterprise:\n  client_id: override-client\n"
	ext := "extensions:\n  - context: per_user\n    extended_adobe_groups: [All Apps]\n    after_mapping_hook: |\n      if source_attributes.get('subco') == 'Company 1':\n        target_groups.add('All Apps')\n"
	res, cfg := migrateFiles(t, map[string]string{"user-sync-config.yml": main, "connector-umapi-override.yml": override, "extension-old.yml": ext},
		"--connector", "csv", "users.csv")
	if cfg == nil {
		t.Fatal("does not load")
	}
	checkReport(t, res)
	if cfg.Primary().Auth.ClientID != "override-client" || cfg.Primary().OrgID != "1234ABCD5678EF90@VendorOrg" {
		t.Errorf("merged target %+v", cfg.Primary())
	}
	if e := entry(t, res.Report, "connector-umapi.yml:5 enterprise.client_id"); e.Outcome != NotUsed || !strings.Contains(reportText(res.Report), "connector-umapi-override.yml:2 enterprise.client_id") {
		t.Errorf("%+v\n%s", e, reportText(res.Report))
	}
	if !res.Report.Hook.Applied || cfg.Sources[0].Groups == "" {
		t.Errorf("the older extension form was not read: %+v", res.Report.Hook)
	}
}
