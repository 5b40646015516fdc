package source

import (
	"fmt"

	"github.com/orgsync/orgsync/internal/util/textcut"
	"github.com/orgsync/orgsync/target/umwire"
)

// shownOfALongName is how much of a group name over the limit a problem
// quotes.
const shownOfALongName = 64

// GroupNamesProblem returns why target groups cannot be taken (the first
// whose name is longer than the service allows a group's,
// umwire.CheckGroupName), "" when they can. Each source refuses such a
// record at read, as it refuses a name too long, with where it is, and
// adds what becomes of it.
func GroupNamesProblem(groups []string) string {
	for _, g := range groups {
		if err := umwire.CheckGroupName(g); err != nil {
			return fmt.Sprintf("target group %q: %v (shorten the group's name in the directory, or map it to a shorter one)",
				textcut.Cut(g, shownOfALongName), err)
		}
	}
	return ""
}
