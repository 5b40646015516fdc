// Package all is the registry of the source kinds orgsync has: the key of
// each kind in an entry of the configuration's sources list and the kind's
// configuration type. Adding a kind is its package and one line here.
package all

import (
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/csvfile"
	"github.com/orgsync/orgsync/source/entra"
	"github.com/orgsync/orgsync/source/google"
	"github.com/orgsync/orgsync/source/ldap"
	"github.com/orgsync/orgsync/source/okta"
	"github.com/orgsync/orgsync/source/yamlfile"
)

// Kinds returns every source kind, in the order messages list them.
func Kinds() source.Kinds {
	return source.Kinds{
		source.KindOf[csvfile.Config]("csv"),
		source.KindOf[yamlfile.Config]("yaml"),
		source.KindOf[ldap.Config]("ldap"),
		source.KindOf[entra.Config]("entra"),
		source.KindOf[okta.Config]("okta"),
		source.KindOf[google.Config]("google"),
	}
}
