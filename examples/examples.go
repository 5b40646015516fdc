// Package examples holds orgsync's example configurations, their data and
// the simulator's example organization, embedded so that `orgsync demo`
// runs without any file of the repository.
package examples

import "embed"

// FS holds the example files: csv/, yaml/, multiorg/ and sim/
// (organization states, demo credentials), plus the OpenLDAP, Active
// Directory, FreeIPA, Entra ID, Okta and Google Workspace examples.
//
//go:embed csv yaml sim openldap activedirectory freeipa multiorg entra okta google
var FS embed.FS

// OpenLDAPReaderPassword is the password of orgsync's read-only account,
// cn=reader,dc=example,dc=com, in openldap/users.ldif: a demo credential.
const OpenLDAPReaderPassword = "reader-secret"

// ActiveDirectoryServicePassword is the password of orgsync's account,
// svc-orgsync, in the Active Directory example's throwaway domain
// (activedirectory/demo/directory.ldif): a demo credential, from which the
// demo exports the account's keytab.
const ActiveDirectoryServicePassword = "Svc-Orgsync-Demo-1"

// FreeIPAReaderPassword is the password of orgsync's system account,
// uid=orgsync,cn=sysaccounts,cn=etc,dc=example,dc=com, in the FreeIPA
// example's directory (freeipa/demo/directory.ldif): a demo credential.
const FreeIPAReaderPassword = "Orgsync-Demo-1"
