// Package docs is orgsync's manual. The configuration's key tables are
// embedded: the JSON Schema of the configuration (orgsync schema) takes each
// key's description from them (see config/keydoc.go).
package docs

import "embed"

// KeyTables holds the manual's pages that document configuration keys.
//
//go:embed configuration.md sources.md
var KeyTables embed.FS
