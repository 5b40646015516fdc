package migrate

import (
	"strings"
	"testing"
)

// categoryCase is one setting of a family, in the incumbent's files, and
// what the report must say of it.
type categoryCase struct {
	family  string
	files   map[string]string // over baseFiles (the main file: mainWith's)
	flags   string
	where   string // the end of the entry's place
	outcome Outcome
	risky   bool // the entry must be accepted
}

// The connector files the cases name.
const (
	ldapFile = "host: ldaps://dc1.corp.example.org\nbase_dn: dc=corp,dc=example,dc=org\nusername: cn=svc,dc=corp,dc=example,dc=org\npassword: x-not-a-real-secret\n"
	oktaFile = "host: example.okta.com\napi_token: tok-not-a-real-secret\n"
)

// withConnector is the main file naming a directory connector file.
func withConnector(kind, extra string) string {
	return strings.Replace(mainWith(extra), "  groups:", "  connectors:\n    "+kind+": connector-"+kind+".yml\n  groups:", 1)
}

// withExtension is the main file naming an extension file.
func withExtension() string {
	return strings.Replace(mainWith(""), "  groups:", "  extension: extension.yml\n  groups:", 1)
}

const csvFlags = "--connector csv users.csv --process-groups"

// categoryCases walk, for each family of the incumbent's settings, every
// category the report can print for it.
var categoryCases = []categoryCase{
	// The service connector.
	{"service connector", nil, csvFlags, "enterprise.org_id", Translated, false},
	{"service connector", map[string]string{"connector-umapi.yml": baseFiles["connector-umapi.yml"] + "server:\n  retries: 5\n"}, csvFlags, "server.retries", Differs, false},
	{"service connector", map[string]string{"connector-umapi.yml": baseFiles["connector-umapi.yml"] + "trusted: True\n"}, csvFlags, "trusted", NoEquivalent, false},
	{"service connector", map[string]string{"connector-umapi.yml": baseFiles["connector-umapi.yml"] + "  tech_acct_id: t@techacct.example.com\n"}, csvFlags, "enterprise.tech_acct_id", NotUsed, false},
	{"service connector", map[string]string{"connector-umapi.yml": baseFiles["connector-umapi.yml"] + "  client_secert: typo-not-a-real-secret\n"}, csvFlags, "enterprise.client_secert", Unknown, true},
	// The directory connectors.
	{"ldap connector", map[string]string{"user-sync-config.yml": withConnector("ldap", ""), "connector-ldap.yml": ldapFile}, "--process-groups", "base_dn", Translated, false},
	{"ldap connector", map[string]string{"user-sync-config.yml": withConnector("ldap", ""), "connector-ldap.yml": ldapFile + "require_tls_cert: False\n"}, "--process-groups", "require_tls_cert", Differs, false},
	{"ldap connector", map[string]string{"user-sync-config.yml": withConnector("ldap", ""), "connector-ldap.yml": ldapFile + "string_encoding: latin1\n"}, "--process-groups", "string_encoding", NoEquivalent, false},
	{"ldap connector", map[string]string{"user-sync-config.yml": withConnector("ldap", ""), "connector-ldap.yml": ldapFile + "group_member_filter_format: \"(isMemberOf={group_dn})\"\n"}, "--process-groups", "group_member_filter_format", NoEquivalent, true},
	{"ldap connector", map[string]string{"user-sync-config.yml": withConnector("ldap", ""), "connector-ldap.yml": ldapFile + "dynamic_group_member_attribute: memberOf\n"}, "--process-groups", "dynamic_group_member_attribute", NotUsed, false},
	{"ldap connector", map[string]string{"user-sync-config.yml": withConnector("ldap", ""), "connector-ldap.yml": ldapFile + "base_dm: dc=typo\n"}, "--process-groups", "base_dm", Unknown, true},
	{"csv connector", map[string]string{"user-sync-config.yml": withConnector("csv", ""), "connector-csv.yml": "delimiter: \",\"\n"}, csvFlags, "delimiter", Translated, false},
	{"csv connector", map[string]string{"user-sync-config.yml": withConnector("csv", ""), "connector-csv.yml": "string_encoding: ebcdic\n"}, csvFlags, "string_encoding", NoEquivalent, false},
	{"csv connector", map[string]string{"user-sync-config.yml": withConnector("csv", ""), "connector-csv.yml": "file_path: other.csv\n"}, csvFlags, "file_path", NotUsed, false},
	{"csv connector", map[string]string{"user-sync-config.yml": withConnector("csv", ""), "connector-csv.yml": "delimeter: \",\"\n"}, csvFlags, "delimeter", Unknown, true},
	{"okta connector", map[string]string{"user-sync-config.yml": withConnector("okta", ""), "connector-okta.yml": oktaFile}, "--connector okta --users mapped --process-groups", "host", Translated, false},
	{"okta connector", map[string]string{"user-sync-config.yml": withConnector("okta", ""), "connector-okta.yml": oktaFile + "user_country_code_format: \"{countryCode}\"\n"}, "--connector okta --users mapped --process-groups", "user_country_code_format", Differs, false},
	{"okta connector", map[string]string{"user-sync-config.yml": withConnector("okta", ""), "connector-okta.yml": oktaFile + "all_users_filter: 'user.profile.department == \"Design\"'\n"}, "--connector okta --users mapped --process-groups", "all_users_filter", NoEquivalent, true},
	{"okta connector", map[string]string{"user-sync-config.yml": withConnector("okta", ""), "connector-okta.yml": oktaFile}, csvFlags, "api_token", NotUsed, false},
	{"okta connector", map[string]string{"user-sync-config.yml": withConnector("okta", ""), "connector-okta.yml": oktaFile + "hots: x\n"}, "--connector okta --users mapped --process-groups", "hots", Unknown, true},
	// The mapping.
	{"mapping", nil, csvFlags, "directory_users.groups[0].adobe_groups", Translated, false},
	{"mapping", map[string]string{"user-sync-config.yml": withConnector("ldap", ""), "connector-ldap.yml": ldapFile}, "--process-groups", "directory_users.groups[0].adobe_groups", Differs, false},
	{"mapping", map[string]string{"user-sync-config.yml": strings.Replace(mainWith(""), "  groups:", "  additional_groups:\n    - source: '(?!Old)ACL-(.+)'\n      target: 'ACL-\\1'\n  groups:", 1)}, csvFlags, "additional_groups[0]", NoEquivalent, true},
	{"mapping", map[string]string{"user-sync-config.yml": strings.Replace(withConnector("okta", ""), "  groups:", "  additional_groups:\n    - source: 'ACL-(.+)'\n      target: 'ACL-\\1'\n  groups:", 1), "connector-okta.yml": oktaFile}, "--connector okta --users mapped --process-groups", "additional_groups[0].source", NotUsed, false},
	{"mapping", map[string]string{"user-sync-config.yml": strings.Replace(mainWith(""), "adobe_groups: [All Apps]", "adobe_group: [All Apps]", 1)}, csvFlags, "directory_users.groups[0].adobe_group", Unknown, true},
	// The exclusions.
	{"exclusions", map[string]string{"user-sync-config.yml": strings.Replace(mainWith(""), "adobe_users:", "adobe_users:\n  exclude_users: ['svc-.*']", 1)}, csvFlags, "exclude_users", Translated, false},
	{"exclusions", map[string]string{"user-sync-config.yml": strings.Replace(strings.Replace(mainWith(""), "adobe_users:", "adobe_users:\n  exclude_adobe_groups: [_org_admin]", 1), "umapi: connector-umapi.yml", "umapi: [connector-umapi.yml, {org2: connector-umapi-org2.yml}]", 1),
		"connector-umapi-org2.yml": strings.Replace(baseFiles["connector-umapi.yml"], "1234ABCD", "5678EF01", 1)}, csvFlags, "exclude_adobe_groups", Differs, true},
	{"exclusions", map[string]string{"user-sync-config.yml": strings.Replace(mainWith(""), "adobe_users:", "adobe_users:\n  exclude_users: ['(?!ann).*@example\\.com']", 1)}, csvFlags, "exclude_users", NoEquivalent, true},
	{"exclusions", map[string]string{"user-sync-config.yml": strings.Replace(mainWith(""), "adobe_users:", "adobe_users:\n  exclude_user: ['svc-.*']", 1)}, csvFlags, "exclude_user", Unknown, true},
	// The invocation options.
	{"invocation options", nil, csvFlags, "command line: --process-groups", Translated, false},
	{"invocation options", nil, csvFlags + " -t", "command line: -t", Differs, true},
	{"invocation options", nil, csvFlags + " --users mapped", "command line: --users mapped", Differs, false},
	{"invocation options", nil, csvFlags + " --adobe-users mapped", "command line: --adobe-users mapped", NoEquivalent, true},
	{"invocation options", map[string]string{"user-sync-config.yml": mainWith("invocation_defaults:\n  process_groups: No\n")}, csvFlags, "invocation_defaults.process_groups", NotUsed, false},
	{"invocation options", map[string]string{"user-sync-config.yml": mainWith("invocation_defaults:\n  proces_groups: Yes\n")}, csvFlags, "invocation_defaults.proces_groups", Unknown, true},
	// The limits.
	{"limits", map[string]string{"user-sync-config.yml": mainWith("") + "  group_removals_only: False\n"}, csvFlags, "limits.group_removals_only", Translated, false},
	{"limits", nil, csvFlags, "limits.max_adobe_only_users", Differs, false},
	{"limits", map[string]string{"user-sync-config.yml": mainWith("") + "  group_removals_only: True\n"}, csvFlags + " --adobe-only-user-action remove", "limits.group_removals_only", NoEquivalent, true},
	{"limits", map[string]string{"user-sync-config.yml": mainWith("") + "  group_removals_only: True\n"}, "--connector csv users.csv", "limits.group_removals_only", NotUsed, false},
	{"limits", map[string]string{"user-sync-config.yml": strings.Replace(mainWith(""), "max_adobe_only_users", "max_adobe_only_user", 1)}, csvFlags, "limits.max_adobe_only_user", Unknown, true},
	// The logging.
	{"logging", map[string]string{"user-sync-config.yml": mainWith("logging:\n  log_to_file: False\n")}, csvFlags, "logging.log_to_file", Translated, false},
	{"logging", map[string]string{"user-sync-config.yml": mainWith("logging:\n  log_progress: True\n")}, csvFlags, "logging.log_progress", Differs, false},
	{"logging", map[string]string{"user-sync-config.yml": mainWith("logging:\n  console_log_level: verbose\n")}, csvFlags, "logging.console_log_level", NoEquivalent, false},
	{"logging", map[string]string{"user-sync-config.yml": mainWith("logging:\n  log_to_file: False\n  file_log_level: debug\n")}, csvFlags, "logging.file_log_level", NotUsed, false},
	{"logging", map[string]string{"user-sync-config.yml": mainWith("logging:\n  log_to_fiel: True\n")}, csvFlags, "logging.log_to_fiel", Unknown, true},
	// The extension.
	{"extension", map[string]string{"user-sync-config.yml": withExtension(), "extension.yml": "extended_adobe_groups: [All Apps]\nafter_mapping_hook: |\n  if source_attributes.get('subco') == 'Company 1':\n    target_groups.add('All Apps')\n"}, csvFlags, "extended_adobe_groups", Translated, false},
	{"extension", map[string]string{"user-sync-config.yml": withExtension(), "extension.yml": "extended_adobe_groups: [All Apps]\nafter_mapping_hook: |\n  if source_attributes.get('subco') == 'Company 1':\n    target_groups.add('All Apps')\n"}, csvFlags, "after_mapping_hook", Differs, false},
	{"extension", map[string]string{"user-sync-config.yml": withExtension(), "extension.yml": "after_mapping_hook: |\n  for g in source_groups:\n    target_groups.add(g)\n"}, csvFlags, "after_mapping_hook", NoEquivalent, true},
	{"extension", map[string]string{"user-sync-config.yml": strings.Replace(withExtension(), "  extension:", "  connectors:\n    adobe_console: connector-adobe-console.yml\n  extension:", 1),
		"connector-adobe-console.yml": "enterprise:\n  org_id: \"5678EF01@AdobeOrg\"\n", "extension.yml": "extended_attributes: [bc]\nafter_mapping_hook: |\n  pass\n"}, "--connector adobe_console", "extended_attributes", NotUsed, false},
	{"extension", map[string]string{"user-sync-config.yml": withExtension(), "extension.yml": "extended_adobe_grups: [All Apps]\nafter_mapping_hook: |\n  target_groups.add('All Apps')\n"}, csvFlags, "extended_adobe_grups", Unknown, true},
}

// TestEveryCategoryOfEveryFamily walks every category the report can
// print for each family of settings: each case's entry has its outcome,
// is to be accepted exactly when it removes a protection or applies more
// than the incumbent, and then makes migrate fail until it is accepted.
func TestEveryCategoryOfEveryFamily(t *testing.T) {
	t.Parallel()
	seen := map[string]map[Outcome]bool{}
	for _, c := range categoryCases {
		if seen[c.family] == nil {
			seen[c.family] = map[Outcome]bool{}
		}
		seen[c.family][c.outcome] = true
		t.Run(c.family+"/"+string(c.outcome)+"/"+c.where, func(t *testing.T) {
			files := map[string]string{"user-sync-config.yml": mainWith("")}
			for name, text := range c.files {
				files[name] = text
			}
			res, _ := migrateFiles(t, files, strings.Fields(c.flags)...)
			e := entry(t, res.Report, c.where)
			if e.Outcome != c.outcome || (e.Risk != Safe) != c.risky {
				t.Fatalf("%s: %s (risk %q), want %s (to accept: %v)\n%s", c.where, e.Outcome, e.Risk, c.outcome, c.risky, reportText(res.Report))
			}
			if c.risky {
				if !res.Report.Blocked() || !strings.Contains(string(res.Config), "# NOT READY") || !strings.Contains(reportText(res.Report), "to accept before use") {
					t.Errorf("a difference to accept does not block:\n%s", res.Config)
				}
				accepted, _ := migrateFilesWith(t, files, Options{AcceptDifferences: true}, strings.Fields(c.flags)...)
				if accepted.Report.Blocked() || !strings.Contains(string(accepted.Config), "accepted with orgsync migrate --accept-differences") ||
					!strings.Contains(string(accepted.Config), e.Where) {
					t.Errorf("accepted, the configuration's header does not record it:\n%s", accepted.Config)
				}
			}
		})
	}
	for _, family := range []string{"service connector", "ldap connector", "csv connector", "okta connector", "mapping", "exclusions", "invocation options", "limits", "logging", "extension"} {
		for _, o := range []Outcome{Translated, Differs, NoEquivalent, NotUsed, Unknown} {
			if !seen[family][o] && !cannotPrint[family+"/"+string(o)] {
				t.Errorf("family %s: no case for %q", family, o)
			}
		}
	}
}

// cannotPrint are the categories a family's settings never get, with why.
var cannotPrint = map[string]bool{
	// Every CSV connector setting migrate knows has an equivalent that
	// behaves the same, or none (an encoding orgsync does not read).
	"csv connector/" + string(Differs): true,
	// The incumbent always applies its exclusions.
	"exclusions/" + string(NotUsed): true,
}
