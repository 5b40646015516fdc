package ldap

import (
	"errors"
	"fmt"
	"strings"
)

// plan is what one read does once the flavor is known: the queries and
// the membership modes, with every default applied.
type plan struct {
	flavor flavor
	// lockFilter is the filter that leaves locked accounts out, when the
	// users' filter has it ("" otherwise).
	lockFilter string
	users      query
	groups     query
	nameAttr   string
	uidAttr    string
	modes      modes
	nested     bool
}

// modes are the membership modes in use.
type modes struct {
	member, uniqueMember, memberUID, memberOf, primary bool
}

// inChain reports whether membership is answered by Active Directory's
// LDAP_MATCHING_RULE_IN_CHAIN searches instead of reading member lists.
func (p *plan) inChain() bool { return p.flavor.inChain && p.modes.member }

// plan applies the defaults of the server's flavor (d.flavor) to the
// configuration; FreeIPA's base DNs default under d.suffix.
func (s *Source) plan(d rootDSE) (*plan, error) {
	g := &s.cfg.Groups
	fl := flavors[d.flavor]
	p := &plan{flavor: fl, nameAttr: g.NameAttribute, uidAttr: g.UIDAttribute, nested: g.Nested == nil || *g.Nested, modes: fl.membership}
	if len(g.Membership) > 0 {
		p.modes = modesOf(g.Membership)
	}
	userBase, groupBase, err := s.bases(fl, d.suffix)
	if err != nil {
		return nil, err
	}
	userScope, _ := scopeOf(s.cfg.Users.Scope)
	groupScope, _ := scopeOf(g.Scope)
	p.users = query{base: userBase, scope: userScope, filter: pick(s.cfg.Users.Filter, fl.userFilter)}
	if fl.locked != "" && !s.cfg.Users.IncludeLocked {
		p.lockFilter = "(!" + fl.locked + ")"
		p.users.filter = "(&" + p.users.filter + p.lockFilter + ")"
	}
	p.groups = query{base: groupBase, scope: groupScope, filter: pick(g.Filter, fl.groupFilter)}
	p.users.attrs = p.userAttributes(uniqueFold(append(s.fields.Attributes(), s.cfg.Users.ExtraAttributes...)))
	p.groups.attrs = p.groupAttributes()
	return p, nil
}

// bases returns the users' and the groups' base DNs: as configured, the
// groups' defaulting to the users' (applyDefaults), or with FreeIPA's
// layout, cn=users and cn=groups of cn=accounts under the suffix.
func (s *Source) bases(fl flavor, suffix string) (users, groups string, err error) {
	users, groups = s.cfg.Users.BaseDN, s.cfg.Groups.BaseDN
	if !fl.ipa || (users != "" && groups != "") {
		return users, groups, nil
	}
	if suffix == "" {
		return "", "", errors.New("the server's root DSE names no default naming context to find FreeIPA's cn=accounts under: set users.baseDN (cn=users,cn=accounts,<suffix>) and groups.baseDN (cn=groups,cn=accounts,<suffix>)")
	}
	if users == "" {
		users = ipaUsers + "," + suffix
	}
	if groups == "" {
		groups = ipaGroups + "," + suffix
	}
	return users, groups, nil
}

// lockRights is what an empty user search adds about the attribute that
// marks locked accounts: an account that may not read it matches no user.
func (p *plan) lockRights() string {
	if p.lockFilter == "" {
		return ""
	}
	return fmt.Sprintf(", nsAccountLock included: the filter %s needs it (users.includeLocked: true drops it)", p.lockFilter)
}

// provisioned reports whether dn is a FreeIPA staged or preserved user:
// an entry under cn=accounts,cn=provisioning.
func provisioned(dn string) bool {
	return strings.Contains(normDN(dn), ","+ipaProvisioning+",")
}

// pick returns the configured value, else the flavor's default.
func pick(configured, byFlavor string) string {
	if configured != "" {
		return configured
	}
	return byFlavor
}

func modesOf(names []string) modes {
	var m modes
	for _, n := range names {
		switch n {
		case MemberDN:
			m.member = true
		case UniqueMember:
			m.uniqueMember = true
		case MemberUID:
			m.memberUID = true
		case MemberOf:
			m.memberOf = true
		case PrimaryGroup:
			m.primary = true
		}
	}
	return m
}

// userAttributes are the attributes read from each user: those of the
// templates plus those membership needs.
func (p *plan) userAttributes(template []string) []string {
	attrs := template
	if p.modes.memberUID {
		attrs = append(attrs, p.uidAttr)
	}
	if p.modes.memberOf {
		attrs = append(attrs, "memberOf")
	}
	if p.modes.primary {
		attrs = append(attrs, "primaryGroupID")
	}
	return uniqueFold(attrs)
}

// groupAttributes are the attributes read from each group.
func (p *plan) groupAttributes() []string {
	attrs := []string{p.nameAttr}
	if p.modes.member && !p.inChain() {
		attrs = append(attrs, "member")
	}
	if p.modes.uniqueMember {
		attrs = append(attrs, "uniqueMember")
	}
	if p.modes.memberUID {
		attrs = append(attrs, "memberUid")
	}
	if p.modes.primary {
		attrs = append(attrs, "objectSid")
	}
	return uniqueFold(attrs)
}
