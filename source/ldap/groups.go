package ldap

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	ldap3 "github.com/go-ldap/ldap/v3"

	"github.com/orgsync/orgsync/source"
)

// InChainRule is Active Directory's LDAP_MATCHING_RULE_IN_CHAIN: a filter
// (memberOf:1.2.840.113556.1.4.1941:=G) matches every entry in G directly
// or through nested groups.
const InChainRule = "1.2.840.113556.1.4.1941"

// group is one directory group as read.
type group struct {
	dn, name string   // normalized DN, name
	rawDN    string   // the DN as the server wrote it, for filters and messages
	rdn      string   // normalized first RDN
	targets  []string // its own mapped target groups
	members  []string // normalized DNs from member and uniqueMember
	uids     []string // memberUid values, lower case
	rid      uint32   // relative ID from objectSid, 0 when unknown
}

// memberships knows the target groups of each user, by the user's DN, uid,
// memberOf values and primary group.
type memberships struct {
	byDN     map[string][]string // normalized user DN -> targets
	byUID    map[string][]string // lower-case uid -> targets
	byRID    map[uint32][]string // primary group RID -> targets
	byGroup  map[string][]string // normalized group DN -> targets (for memberOf)
	mapGroup func(name, dn string) []string
	names    bool                  // directory group names ride along (splitNames)
	found    []string              // exactly mapped groups that exist
	missing  []source.MissingGroup // exactly mapped groups that do not (when the caller checks)
}

// readMemberships reads the groups, checks that every exactly mapped group
// exists (or notes the missing ones, when the caller checks them across
// sources), and resolves who is in which target group.
func (s *Source) readMemberships(ctx context.Context, sr *searcher, p *plan) (*memberships, error) {
	m := &memberships{byDN: map[string][]string{}, byUID: map[string][]string{}, byRID: map[uint32][]string{}, byGroup: map[string][]string{}}
	if s.mapper.Empty() {
		return m, nil
	}
	m.names = s.prog != nil
	m.mapGroup = cachedMapper(s.mapper.MapGroup)
	if m.names {
		m.mapGroup = cachedMapper(withName(s.mapper.MapGroup))
	}
	groups, err := s.readGroups(ctx, sr, p, m.mapGroup)
	if err != nil {
		return nil, err
	}
	m.found, m.missing = s.exactGroups(groups, p)
	if len(m.missing) > 0 && !s.callerChecksGroups {
		return nil, source.MissingGroupsError(m.missing, false)
	}
	effective := effectiveTargets(groups, p.nested && !p.inChain())
	for _, g := range sortedGroups(groups) { // the same spelling wins each run
		m.addGroup(g, effective[g.dn])
	}
	if p.inChain() {
		if err := s.readInChain(ctx, sr, p, groups, m); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// readGroups reads every group under groups.baseDN with its mapped targets
// (as mapGroup gives them).
func (s *Source) readGroups(ctx context.Context, sr *searcher, p *plan, mapGroup func(name, dn string) []string) (map[string]*group, error) {
	groups := map[string]*group{}
	ranged := map[string]int{} // groups with more member values to read
	var rangeErr error
	err := sr.search(ctx, p.groups, func(e *ldap3.Entry) {
		g := &group{dn: normDN(e.DN), rawDN: e.DN, name: e.GetEqualFoldAttributeValue(p.nameAttr)}
		if parsed, err := ldap3.ParseDN(e.DN); err == nil && len(parsed.RDNs) > 0 {
			g.rdn = normDN((&ldap3.DN{RDNs: parsed.RDNs[:1]}).String())
		}
		g.targets = mapGroup(g.name, e.DN)
		members, next, err := memberValues(e)
		if err != nil && rangeErr == nil {
			rangeErr = err
		}
		if next >= 0 {
			ranged[g.dn] = next
		}
		for _, dn := range members {
			g.members = append(g.members, normDN(stripUID(dn)))
		}
		for _, uid := range e.GetEqualFoldAttributeValues("memberUid") {
			g.uids = append(g.uids, strings.ToLower(uid))
		}
		g.rid = sidRID([]byte(e.GetEqualFoldAttributeValue("objectSid")))
		groups[g.dn] = g
	})
	if err == nil {
		err = rangeErr
	}
	if err == nil {
		err = s.readRanges(ctx, sr, groups, ranged)
	}
	if err != nil {
		return nil, fmt.Errorf("groups: %w", err)
	}
	return groups, nil
}

// exactGroups splits the directory groups named by exact mapping rules into
// those among the groups read and those missing. Where they were looked
// for names the bind account, since an account that may not read a group
// does not see it, without an error.
func (s *Source) exactGroups(groups map[string]*group, p *plan) (found []string, missing []source.MissingGroup) {
	rights := "if the group exists, check that it may read it"
	if len(groups) == 0 {
		rights = "it sees no group there at all: check that it may read them"
	}
	where := fmt.Sprintf("under %q with filter %s, as read by %s (%s)", p.groups.base, p.groups.filter, bindAccount(s.cfg.BindDN), rights)
	for _, want := range s.mapper.ExactGroups() {
		if groupExists(groups, want) {
			found = append(found, want)
		} else {
			missing = append(missing, source.MissingGroup{Group: want, Where: where})
		}
	}
	return found, missing
}

// groupExists reports whether want (a name, an RDN or a DN) names a group.
func groupExists(groups map[string]*group, want string) bool {
	norm := normDN(want)
	for dn, g := range groups {
		if strings.EqualFold(g.name, want) || dn == norm || g.rdn == norm {
			return true
		}
	}
	return false
}

// effectiveTargets returns each group's targets together with those of
// every group it is in, directly or (when nested) through other groups.
// Cycles are harmless: each walk visits a group once.
func effectiveTargets(groups map[string]*group, nested bool) map[string][]string {
	parents := map[string][]string{}
	if nested {
		for _, g := range sortedGroups(groups) {
			for _, m := range g.members {
				if _, isGroup := groups[m]; isGroup {
					parents[m] = append(parents[m], g.dn)
				}
			}
		}
	}
	out := make(map[string][]string, len(groups))
	for dn := range groups {
		visited := map[string]bool{}
		var targets []string
		var walk func(string)
		walk = func(at string) {
			if visited[at] {
				return
			}
			visited[at] = true
			targets = dedupeFold(targets, groups[at].targets...)
			for _, up := range parents[at] {
				walk(up)
			}
		}
		walk(dn)
		out[dn] = targets
	}
	return out
}

// addGroup records that the members of g get targets.
func (m *memberships) addGroup(g *group, targets []string) {
	if len(targets) == 0 {
		return
	}
	m.byGroup[g.dn] = targets
	for _, dn := range g.members {
		m.byDN[dn] = dedupeFold(m.byDN[dn], targets...)
	}
	for _, uid := range g.uids {
		m.byUID[uid] = dedupeFold(m.byUID[uid], targets...)
	}
	if g.rid != 0 {
		m.byRID[g.rid] = dedupeFold(m.byRID[g.rid], targets...)
	}
}

// readInChain asks Active Directory, for each mapped group, which users
// (and, for primary groups, which groups) are in it directly or through
// nested groups.
func (s *Source) readInChain(ctx context.Context, sr *searcher, p *plan, groups map[string]*group, m *memberships) error {
	for _, g := range sortedGroups(groups) {
		if targets, _ := splitNames(g.targets); len(targets) == 0 {
			continue // with no target of its own, only its name would ride along: not worth a search
		}
		cond := "(memberOf=" + ldap3.EscapeFilter(g.rawDN) + ")"
		if p.nested {
			cond = "(memberOf:" + InChainRule + ":=" + ldap3.EscapeFilter(g.rawDN) + ")"
		}
		users := query{base: p.users.base, scope: p.users.scope, filter: "(&" + p.users.filter + cond + ")", attrs: []string{"1.1"}}
		err := sr.search(ctx, users, func(e *ldap3.Entry) {
			dn := normDN(e.DN)
			m.byDN[dn] = dedupeFold(m.byDN[dn], g.targets...)
		})
		if err != nil {
			return fmt.Errorf("members of %s: %w", g.rawDN, err)
		}
		if p.modes.primary && p.nested {
			if err := s.readNestedPrimary(ctx, sr, p, g, cond, m); err != nil {
				return err
			}
		}
	}
	return nil
}

// readNestedPrimary gives the targets of g to the users whose primary group
// is nested in g.
func (s *Source) readNestedPrimary(ctx context.Context, sr *searcher, p *plan, g *group, cond string, m *memberships) error {
	q := query{base: p.groups.base, scope: p.groups.scope, filter: "(&" + p.groups.filter + cond + ")", attrs: []string{"objectSid"}}
	err := sr.search(ctx, q, func(e *ldap3.Entry) {
		if rid := sidRID([]byte(e.GetEqualFoldAttributeValue("objectSid"))); rid != 0 {
			m.byRID[rid] = dedupeFold(m.byRID[rid], g.targets...)
		}
	})
	if err != nil {
		return fmt.Errorf("groups nested in %s: %w", g.rawDN, err)
	}
	return nil
}

// sortedGroups returns the groups in DN order, so that searches run in a
// stable order.
func sortedGroups(groups map[string]*group) []*group {
	out := make([]*group, 0, len(groups))
	for _, g := range groups {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].dn < out[j].dn })
	return out
}

// targets returns the target groups of user entry e, sorted: the same
// every run, whatever order the directory returns the groups in.
func (m *memberships) targets(e *ldap3.Entry, p *plan) []string {
	if m.mapGroup == nil {
		return nil
	}
	out := dedupeFold(nil, m.byDN[normDN(e.DN)]...)
	if p.modes.memberUID {
		out = dedupeFold(out, m.byUID[strings.ToLower(e.GetEqualFoldAttributeValue(p.uidAttr))]...)
	}
	if p.modes.memberOf {
		for _, dn := range e.GetEqualFoldAttributeValues("memberOf") {
			t, known := m.byGroup[normDN(dn)]
			if !known {
				t = m.mapGroup("", dn)
			}
			out = dedupeFold(out, t...)
		}
	}
	if p.modes.primary {
		if rid, err := strconv.ParseUint(e.GetEqualFoldAttributeValue("primaryGroupID"), 10, 32); err == nil {
			out = dedupeFold(out, m.byRID[uint32(rid)]...)
		}
	}
	slices.Sort(out)
	return out
}

// nameMarker starts the directory group names that ride along with the
// target groups, through nesting and every membership mode, when the
// source's expressions need each user's directory groups (withName,
// splitNames).
const nameMarker = "\x00"

// withName adds the group's own name, marked, to what f maps it to. The
// name is the group's name attribute, else the value of its DN's first
// RDN.
func withName(f func(name, dn string) []string) func(name, dn string) []string {
	return func(name, dn string) []string {
		if name == "" {
			name = rdnValue(dn)
		}
		out := f(name, dn)
		if name == "" {
			return out
		}
		return append(out[:len(out):len(out)], nameMarker+name)
	}
}

// rdnValue returns the value of a DN's first RDN ("eng" of "cn=eng,dc=x").
func rdnValue(dn string) string {
	parsed, err := ldap3.ParseDN(dn)
	if err != nil || len(parsed.RDNs) == 0 || len(parsed.RDNs[0].Attributes) == 0 {
		return ""
	}
	return parsed.RDNs[0].Attributes[0].Value
}

// splitNames splits what membership gives a user into its target groups
// and its directory group names (marked by withName).
func splitNames(all []string) (targets, names []string) {
	for _, t := range all {
		if n, ok := strings.CutPrefix(t, nameMarker); ok {
			names = append(names, n)
		} else {
			targets = append(targets, t)
		}
	}
	if names == nil {
		return all, nil
	}
	return targets, names
}

// cachedMapper memoizes a group mapping function by DN: many users share
// the same memberOf values.
func cachedMapper(f func(name, dn string) []string) func(name, dn string) []string {
	cache := map[string][]string{}
	return func(name, dn string) []string {
		key := name + "\x00" + dn
		t, ok := cache[key]
		if !ok {
			t = f(name, dn)
			cache[key] = t
		}
		return t
	}
}

// normDN returns the comparable form of a DN: attribute types and values
// in lower case, without insignificant spaces. A DN that does not parse is
// only lower-cased.
func normDN(dn string) string {
	parsed, err := ldap3.ParseDN(dn)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(dn))
	}
	rdns := make([]string, len(parsed.RDNs))
	for i, rdn := range parsed.RDNs {
		avas := make([]string, len(rdn.Attributes))
		for j, a := range rdn.Attributes {
			avas[j] = strings.ToLower(a.Type) + "=" + strings.ToLower(a.Value)
		}
		sort.Strings(avas)
		rdns[i] = strings.Join(avas, "+")
	}
	return strings.Join(rdns, ",")
}

// stripUID removes the optional "#'0101'B" unique identifier suffix of a
// uniqueMember value.
func stripUID(v string) string {
	if i := strings.LastIndex(v, "#'"); i > 0 && strings.HasSuffix(v, "'B") {
		return v[:i]
	}
	return v
}

// sidRID returns the relative ID (the last sub-authority) of a binary
// security identifier, or 0 when sid is not one.
func sidRID(sid []byte) uint32 {
	if len(sid) < 8 || sid[0] != 1 {
		return 0
	}
	n := int(sid[1])
	if n == 0 || len(sid) != 8+4*n {
		return 0
	}
	return binary.LittleEndian.Uint32(sid[len(sid)-4:])
}

// dedupeFold appends the names not yet in out, case-insensitively.
func dedupeFold(out []string, names ...string) []string {
	for _, n := range names {
		if !containsFold(out, n) {
			out = append(out, n)
		}
	}
	return out
}
