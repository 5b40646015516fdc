package migrate

import (
	"fmt"
	"strings"
)

// otherFiles are the files of the incumbent's repository that are not its
// main user sync file, each known by keys only it has: migrate refuses
// them with what they are.
var otherFiles = []struct {
	keys []string
	what string
}{
	{[]string{"sign_orgs", "identity_source", "user_management", "user_sync"}, "a Sign Sync configuration (the incumbent's sign-sync-config.yml), which syncs Adobe Sign users: orgsync syncs the User Management Service only, so Sign Sync is out of scope"},
	{[]string{"integration_key", "secure_integration_key_key", "admin_email"}, "a Sign Sync connector file (connector-sign.yml): orgsync syncs the User Management Service only, so Sign Sync is out of scope"},
	{[]string{"enterprise", "integration", "server"}, "a service connector file (connector-umapi.yml)"},
	{[]string{"after_mapping_hook", "extended_attributes", "extended_adobe_groups", "extended_vendor_groups", "extensions"}, "an extension file (extension-config.yml)"},
	{[]string{"api_token", "secure_api_token_key"}, "an Okta connector file (connector-okta.yml)"},
	{[]string{"base_dn", "group_filter_format", "group_member_filter_format", "two_steps_lookup", "user_email_format", "search_page_size", "require_tls_cert"}, "an LDAP connector file (connector-ldap.yml)"},
	{[]string{"file_path", "email_column_name", "groups_column_name", "delimiter"}, "a CSV connector file (connector-csv.yml)"},
}

// mainKeys are the top-level keys of the incumbent's main file that say it
// is one.
var mainKeys = []string{"adobe_users", "directory_users"}

// refuseOther stops at a file that is not the incumbent's main user sync
// file, in one line that says what it is.
func (m *migration) refuseOther() error {
	for _, k := range mainKeys {
		if m.main.get(k) != nil {
			return nil
		}
	}
	for _, o := range otherFiles {
		for _, k := range o.keys {
			if m.main.get(k) != nil {
				if strings.Contains(o.what, "out of scope") {
					return fmt.Errorf("%s is %s", m.main.name, o.what)
				}
				return fmt.Errorf("%s is %s, not the incumbent's main file: give migrate user-sync-config.yml, which names it", m.main.name, o.what)
			}
		}
	}
	return fmt.Errorf("%s is not the incumbent's main user sync file (user-sync-config.yml): it has neither adobe_users nor directory_users", m.main.name)
}
