package demo

import (
	"io"

	"github.com/orgsync/orgsync/source/entra/entrafake"
	"github.com/orgsync/orgsync/source/google/googlefake"
	"github.com/orgsync/orgsync/source/ldap/ldapdemo"
	"github.com/orgsync/orgsync/source/okta/oktafake"
)

// Example is an example the demo syncs: its folder, and what starts the
// servers it reads, if any.
type Example struct {
	// Dir is the example's folder: examples/<Dir>/orgsync.yaml.
	Dir string
	// Start, when set, starts what the example reads for the examples
	// copied under dir, printing where it is to out. It returns the
	// replacements (old, new pairs) that point the example's configuration
	// at it, and a function that stops it.
	Start Server
}

// Server starts what an example reads: see Example.Start.
type Server func(out io.Writer, dir string) (replace []string, stop func(), err error)

// servers are what the examples read, by --source name: the demo
// registers the throwaway directory servers and the fakes of the
// vendors' services here, on its own side, so that the source kinds (and
// the configuration that lists them) link none of them. A variant not
// listed reads files of its example only.
func servers() map[string]Server {
	return map[string]Server{
		"ldap":            ldapdemo.StartSlapd,
		"activedirectory": ldapdemo.StartSamba,
		"freeipa":         ldapdemo.StartDirsrv,
		"entra":           entrafake.StartDemo,
		"okta":            oktafake.StartDemo,
		"google":          googlefake.StartDemo,
	}
}
