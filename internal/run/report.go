package run

import (
	"fmt"
	"io"
	"strings"

	"github.com/orgsync/orgsync/internal/util/atomicfile"
	"github.com/orgsync/orgsync/internal/util/csvsafe"
	"github.com/orgsync/orgsync/reconcile"
)

// writeUnmatchedReport writes the users of the organization that are in no
// source to path as CSV (atomically: a temporary file, then a rename); key
// is the setting that names path, for the error. A cell a spreadsheet
// would read as a formula is neutralized (csvsafe).
func writeUnmatchedReport(path string, users reconcile.Users, key string) error {
	err := atomicfile.Write(path, func(f io.Writer) error {
		w := csvsafe.NewWriter(f)
		_ = w.Write([]string{"email", "username", "domain", "type", "firstname", "lastname", "country", "groups"})
		for _, u := range users.All() {
			_ = w.Write([]string{u.Email, u.Username, u.Domain, string(u.Type), u.FirstName, u.LastName, u.Country, strings.Join(u.Groups, ",")})
		}
		w.Flush()
		return w.Error()
	})
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}
