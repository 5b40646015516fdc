package source

import (
	"fmt"
	"strconv"
	"strings"
)

// MissingGroup is a group of an exact mapping rule that a source looked for
// and did not find.
type MissingGroup struct {
	Group string // as the rule writes it (mapping.Mapper.ExactGroups)
	Where string // where the source looked, e.g. `under "ou=groups,dc=example,dc=com" with filter (objectClass=groupOfNames)`
}

// MissingGroupsError is the error for exactly mapped groups that are not
// found: a renamed or deleted group must stop the run, not silently empty
// its target groups. elsewhere says that the other sources were searched
// too (CheckGroups).
func MissingGroupsError(missing []MissingGroup, elsewhere bool) error {
	var parts []string
	for i := 0; i < len(missing); {
		where := missing[i].Where
		var names []string
		for ; i < len(missing) && missing[i].Where == where; i++ {
			names = append(names, strconv.Quote(missing[i].Group))
		}
		parts = append(parts, strings.Join(names, ", ")+" not found "+where)
	}
	also := ""
	if elsewhere {
		also = ", and no other source names them"
	}
	return fmt.Errorf("mapped directory group(s) %s%s: fix the mapping rule or the directory (a missing group would remove every member's access)",
		strings.Join(parts, "; "), also)
}

// AcceptedGroup is a group of an exact mapping rule that a source did not
// find but another source of the run names.
type AcceptedGroup struct {
	Result int // index in the results of the source that did not find it
	MissingGroup
}

// CheckGroups fails when a group of an exact mapping rule that a source
// reported missing is found by no source of the run: with an LDAP source
// and a CSV file, a rule may name a group that only the file has. The
// error names the first source that missed such groups. It returns the
// missing groups that another source names: they may be renamed directory
// groups, so the caller must not strip them from the users of the source
// that missed them (reconcile.Desired.Held).
func CheckGroups(results []NamedResult) ([]AcceptedGroup, error) {
	found := map[string]bool{}
	for _, r := range results {
		for _, g := range r.Result.FoundGroups {
			found[g] = true
		}
	}
	var accepted []AcceptedGroup
	for i, r := range results {
		var missing []MissingGroup
		for _, m := range r.Result.MissingGroups {
			if found[m.Group] {
				accepted = append(accepted, AcceptedGroup{Result: i, MissingGroup: m})
			} else {
				missing = append(missing, m)
			}
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("%s: %w", r.Name, MissingGroupsError(missing, len(results) > 1))
		}
	}
	return accepted, nil
}
