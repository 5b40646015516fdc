package migrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/config"
)

// multiOrg is a configuration written from the incumbent's documentation
// (advanced_configuration.md, Accessing Groups in Other Organizations):
// a primary organization on the deprecated JWT sign-in with its key file
// and a keyring secret, a secondary one on OAuth behind a proxy path,
// groups of both in the mapping and additional groups into the secondary.
var multiOrg = map[string]string{
	"user-sync-config.yml": `
adobe_users:
  exclude_identity_types: [adobeID]
  exclude_adobe_groups: [_org_admin, Keep Out]
  exclude_users: ["freelancer-[0-9]+.*", "admin@example\\.com"]
  connectors:
    umapi:
      - connector-umapi.yml
      - org2: connector-umapi-org2.yml
  update_attributes: [firstname, lastname]
directory_users:
  user_identity_type: federatedID
  default_country_code: US
  connectors:
    csv: connector-csv.yml
  groups:
    - directory_group: Adobe_All_Apps_Users
      adobe_groups: [All Apps, "org2::All Apps"]
    - directory_group: Acrobat_DC_Pro_Users
      adobe_groups: [Acrobat Pro]
  additional_groups:
    - source: "org2-(.+)"
      target: "org2::\\1 Team"
  group_sync_options:
    auto_create: True
limits:
  max_adobe_only_users: 12.5%
logging:
  log_to_file: False
  console_log_level: debug
invocation_defaults:
  connector: [csv, users.csv]
  process_groups: Yes
  users: all
  update_user_info: Yes
  adobe_only_user_action: [write-file, adobe-only.csv]
`,
	"connector-umapi.yml": `
enterprise:
  org_id: "1234ABCD5678EF90@AdobeOrg"
  client_id: "0a1b2c3d4e5f60718293a4b5c6d7e8f9"
  secure_client_secret_key: ust_client_secret
  tech_acct_id: "abcdef0123456789@techacct.adobe.com"
  priv_key_path: "private.key"
`,
	"connector-umapi-org2.yml": `
authentication_method: oauth
server:
  host: umapi.proxy.example.com
  endpoint: /eu/v2/usermanagement
  auth_host: ims.proxy.example.com
  timeout: 60
  retries: 5
enterprise:
  org_id: "FEDCBA9876543210@AdobeOrg"
  client_id: "f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4"
  client_secret: "p8e-not-a-real-secret-1"
`,
	"connector-csv.yml": `
delimiter: ","
string_encoding: utf8
`,
}

// TestEquivalenceMultiOrg checks the two organizations' desired users and
// the translation of both service connectors.
func TestEquivalenceMultiOrg(t *testing.T) {
	t.Parallel()
	dir := fixtureDir(t, true)
	for name, text := range multiOrg {
		writeFile(t, filepath.Join(dir, name), text)
	}
	copyFile(t, "../../../examples/sim/demo-private-key.pem", filepath.Join(dir, "private.key"), false)
	want := equivalent(t, dir, nil, nil)
	if got := want["org2"]["hana@example.com|hana@example.com"].Groups; strings.Join(got, ",") != "all apps,design team" {
		t.Errorf("the incumbent wants hana in org2 with %q: the fixture no longer tests the secondary organization", got)
	}
	res, path := migrateIn(t, dir)
	checkReport(t, res)
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	main, org2 := cfg.Targets[0], cfg.Targets[1]
	for _, c := range []struct{ what, got, want string }{
		{"names", main.Name + "," + org2.Name, "main,org2"},
		{"primary orgId", main.OrgID, "1234ABCD5678EF90@VendorOrg"},
		{"primary method", main.Auth.Method, "jwt"},
		{"primary key file", main.Auth.PrivateKey.File, filepath.Join(dir, "private.key")},
		{"primary secret", strings.Join(main.Auth.ClientSecret.Exec, " "), "keyring get ust_client_secret 1234ABCD5678EF90@AdobeOrg"},
		{"primary technical account", main.Auth.TechnicalAccountID, "abcdef0123456789@techacct.adobe.com"},
		{"org2 base URL", org2.BaseURL, "https://umapi.proxy.example.com/eu"},
		{"org2 auth URL", org2.AuthBaseURL, "https://ims.proxy.example.com"},
		{"org2 timeout", org2.Timeouts.Request.String(), "1m0s"},
		{"org2 secret", org2.Auth.ClientSecret.Env, "ORGSYNC_ORG2_CLIENT_SECRET"},
		{"org2 members", org2.Members, "mapped"},
		{"unmatched", cfg.Policy.UnmatchedUsers, "remove-groups"},
		{"report file", cfg.Policy.ReportFile, filepath.Join(dir, "adobe-only.csv")},
		{"update", strings.Join(cfg.Policy.UpdateAttributes, ","), "firstname,lastname"},
		{"exclusions", strings.Join(cfg.Policy.Exclude.Usernames, " "), `(?i)^(?:freelancer-[0-9]+.*)$ (?i)^(?:admin@example\.com)$`},
		{"max removals", cfg.Safety.MaxRemovals.String(), "12%"},
		{"log level", cfg.Logging.Level, "debug"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
		}
	}
	if org2.Retries.Max != 5 || !cfg.Policy.CreateUserGroups {
		t.Errorf("org2 retries %d, createUserGroups %v", org2.Retries.Max, cfg.Policy.CreateUserGroups)
	}
	// The keyring secret is not run by migrate's check, which says so.
	if !strings.Contains(strings.Join(res.Report.Check.Lines, "\n"), "keyring get ust_client_secret") {
		t.Errorf("the check does not say it left the keyring command out: %q", res.Report.Check.Lines)
	}
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), "# keyring") && strings.Contains(string(data), "p8e-not") {
		t.Errorf("secret copied")
	}
}
