// Package all is the registry of the source kinds orgsync has: the key of
// each kind in an entry of the configuration's sources list, the kind's
// configuration type, and the kind as orgsync init and orgsync demo offer
// it (its variants). Adding a kind is its package and one line here, for
// every command.
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
		source.KindOf[csvfile.Config]("csv", csvfile.Variants()...),
		source.KindOf[yamlfile.Config]("yaml", yamlfile.Variants()...),
		source.KindOf[ldap.Config]("ldap", ldap.Variants()...),
		source.KindOf[entra.Config]("entra", entra.Variants()...),
		source.KindOf[okta.Config]("okta", okta.Variants()...),
		source.KindOf[google.Config]("google", google.Variants()...),
	}
}
