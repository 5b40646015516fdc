package usertmpl

import (
	"strings"

	"github.com/orgsync/orgsync/source/expr"
)

// Attributes are the attributes of one directory record: an LDAP entry,
// a user of a cloud directory's listing.
type Attributes interface {
	// Get returns the value of attr, "" when it has none; of several,
	// the one the directory's source chooses (LDAP's first, the element
	// of a list marked primary, all of a Google multi-valued custom field
	// joined by commas).
	Get(attr string) string
	// Values returns every value of attr, in the directory's order, when
	// it may have several (a multi-valued LDAP attribute, a list in a
	// cloud directory's JSON); it may return nil when attr has at most
	// one, Get's.
	Values(attr string) []string
}

// values fills x.Values (the multi-valued attributes of
// user.attributeValues) with every value of each extra attribute of a
// that gives them, trimmed, empty ones left out.
func (b *builder) values(x *expr.Record, a Attributes) {
	if x.Values == nil {
		x.Values = map[string][]string{}
	}
	clear(x.Values)
	for _, name := range b.ExtraAttributes {
		if vs := a.Values(name); vs != nil {
			x.Values[name] = trimmed(vs)
		}
	}
}

// trimmed returns vs trimmed, without empty values: vs itself when it
// needs no change.
func trimmed(vs []string) []string {
	for i, v := range vs {
		if v == "" || strings.TrimSpace(v) != v {
			out := append([]string(nil), vs[:i]...)
			for _, v := range vs[i:] {
				if v = strings.TrimSpace(v); v != "" {
					out = append(out, v)
				}
			}
			return out
		}
	}
	return vs
}
