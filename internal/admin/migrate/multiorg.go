package migrate

import (
	"strings"
)

// secondary is a secondary organization's item of targets: and its
// orgsync name.
type secondary struct {
	node *node
	name string
}

// secondaryPolicies gives each secondary organization a policy of its own
// that keeps what the incumbent does there: it never touches a user of a
// secondary organization who is not in the primary (unmatchedUsers:
// preserve; the users it excluded in the primary are the exclusion's
// business, see multiOrgExclusion), and updates attributes in the primary
// only. The rest is the top-level policy, its groups this organization's.
func (m *migration) secondaryPolicies() {
	top := m.root.child("policy")
	for _, s := range m.secondaries {
		p := &node{key: "policy", comment: "the incumbent in a secondary organization: see the report (adobe_users.connectors.umapi)"}
		for _, k := range top.kids {
			switch k.key {
			case "unmatchedUsers", "updateAttributes", "reportFile":
				continue // set below, or the primary's only
			case "managedGroups":
				if own := ownGroups(m.managed, s.name); len(own) > 0 {
					c := k.clone()
					c.value = yamlValue(own)
					p.kids = append(p.kids, c)
				}
				continue
			}
			p.kids = append(p.kids, k.clone())
		}
		p.set("unmatchedUsers", "preserve", "the incumbent never touches a user of a secondary organization who is not in the primary")
		p.set("updateAttributes", []string{}, "the incumbent updates attributes in the primary organization only")
		s.node.kids = append(s.node.kids, p)
	}
}

// ownGroups returns the groups of the organization org among groups
// (org::Group), unqualified.
func ownGroups(groups []string, org string) []string {
	var own []string
	for _, g := range groups {
		if rest, ok := strings.CutPrefix(g, org+"::"); ok {
			own = append(own, rest)
		}
	}
	return own
}

// clone returns a deep copy of n.
func (n *node) clone() *node {
	c := *n
	c.kids = make([]*node, len(n.kids))
	for i, k := range n.kids {
		c.kids[i] = k.clone()
	}
	c.head = append([]string(nil), n.head...)
	return &c
}
