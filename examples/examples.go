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
