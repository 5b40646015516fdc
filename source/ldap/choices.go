package ldap

import (
	"maps"
	"slices"

	"github.com/orgsync/orgsync/source"
)

// scopes are the search scopes scopeOf reads.
var scopes = []string{"sub", "one", "base"}

// Choices returns the words of the keys that take one of a few
// (source.Chooser).
func (c *Config) Choices() map[string]source.Choice {
	return map[string]source.Choice{
		"flavor":            {Words: slices.Sorted(maps.Keys(flavors))},
		"bind":              {Words: []string{BindSimple, BindKerberos, BindNTLM}},
		"users.scope":       {Words: scopes},
		"groups.scope":      {Words: scopes},
		"groups.membership": {Words: []string{MemberDN, UniqueMember, MemberUID, MemberOf, PrimaryGroup}},
	}
}
