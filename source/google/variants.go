package google

import (
	_ "embed" // the starter configuration

	"github.com/orgsync/orgsync/source"
)

// starter is the sources and mapping part of init's starter configuration.
//
//go:embed starter.yaml
var starter string

// Variants are the kind as orgsync init and orgsync demo offer it: the
// starter configuration and the google example, read from a fake domain.
func Variants() []source.Variant {
	return []source.Variant{{Name: "google", Starter: starter, Example: source.Example{Dir: "google"}}}
}
