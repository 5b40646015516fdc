package ldap

// plan is what one read does once the flavor is known: the queries and
// the membership modes, with every default applied.
type plan struct {
	ad       bool
	users    query
	groups   query
	nameAttr string
	uidAttr  string
	modes    modes
	nested   bool
}

// modes are the membership modes in use.
type modes struct {
	member, uniqueMember, memberUID, memberOf, primary bool
}

// inChain reports whether membership is answered by Active Directory's
// LDAP_MATCHING_RULE_IN_CHAIN searches instead of reading member lists.
func (p *plan) inChain() bool { return p.ad && p.modes.member }

func (s *Source) plan(flavor string) *plan {
	g := &s.cfg.Groups
	p := &plan{ad: flavor == FlavorActiveDirectory, nameAttr: g.NameAttribute, uidAttr: g.UIDAttribute, nested: g.Nested == nil || *g.Nested}
	p.modes = modesOf(g.Membership, p.ad)
	userScope, _ := scopeOf(s.cfg.Users.Scope)
	groupScope, _ := scopeOf(g.Scope)
	p.users = query{base: s.cfg.Users.BaseDN, scope: userScope, filter: pick(s.cfg.Users.Filter, OpenLDAPUserFilter, ADUserFilter, p.ad)}
	p.groups = query{base: g.BaseDN, scope: groupScope, filter: pick(g.Filter, OpenLDAPGroupFilter, ADGroupFilter, p.ad)}
	p.users.attrs = p.userAttributes(uniqueFold(append(s.fields.Attributes(), s.cfg.Users.ExtraAttributes...)))
	p.groups.attrs = p.groupAttributes()
	return p
}

// pick returns the configured value, else the flavor's default.
func pick(configured, openldap, ad string, isAD bool) string {
	switch {
	case configured != "":
		return configured
	case isAD:
		return ad
	}
	return openldap
}

func modesOf(names []string, ad bool) modes {
	if len(names) == 0 {
		if ad {
			return modes{member: true, memberOf: true, primary: true}
		}
		return modes{member: true, uniqueMember: true, memberUID: true}
	}
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
