package entra

import (
	_ "embed" // the starter configuration

	"github.com/orgsync/orgsync/source"
)

// starter is the sources and mapping part of init's starter configuration.
//
//go:embed starter.yaml
var starter string

// Variants are the kind as orgsync init and orgsync demo offer it: the
// starter configuration and the entra example, read from a fake tenant.
func Variants() []source.Variant {
	return []source.Variant{{Name: "entra", Starter: starter, Example: source.Example{Dir: "entra"}}}
}
