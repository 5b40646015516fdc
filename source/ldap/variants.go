package ldap

import (
	_ "embed" // the starter configurations

	"github.com/orgsync/orgsync/source"
)

// The sources and mapping parts of init's starter configurations, one a
// directory.
var (
	//go:embed starter-openldap.yaml
	openLDAPStarter string
	//go:embed starter-activedirectory.yaml
	activeDirectoryStarter string
	//go:embed starter-freeipa.yaml
	freeIPAStarter string
)

// Variants are the kind as orgsync init and orgsync demo offer it, one a
// directory: OpenLDAP (ldap), Active Directory and FreeIPA, each with its
// starter configuration and its example, served by a throwaway server of
// that directory.
func Variants() []source.Variant {
	return []source.Variant{
		{Name: "ldap", Starter: openLDAPStarter, Example: source.Example{Dir: "openldap"}},
		{Name: "activedirectory", Starter: activeDirectoryStarter, Example: source.Example{Dir: "activedirectory/demo"}},
		{Name: "freeipa", Starter: freeIPAStarter, Example: source.Example{Dir: "freeipa/demo"}},
	}
}

// The demo credentials of the examples' directories.
const (
	// OpenLDAPReaderPassword is the password of orgsync's read-only
	// account, cn=reader,dc=example,dc=com, in the OpenLDAP example's
	// directory (examples/openldap/users.ldif).
	OpenLDAPReaderPassword = "reader-secret"
	// ActiveDirectoryServicePassword is the password of orgsync's account,
	// svc-orgsync, in the Active Directory example's throwaway domain
	// (examples/activedirectory/demo/directory.ldif), from which the demo
	// exports the account's keytab.
	ActiveDirectoryServicePassword = "Svc-Orgsync-Demo-1"
	// FreeIPAReaderPassword is the password of orgsync's system account,
	// uid=orgsync,cn=sysaccounts,cn=etc,dc=example,dc=com, in the FreeIPA
	// example's directory (examples/freeipa/demo/directory.ldif).
	FreeIPAReaderPassword = "Orgsync-Demo-1"
)
