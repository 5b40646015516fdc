package migrate

import (
	"fmt"
	"regexp"
	"strings"

	ldap3 "github.com/go-ldap/ldap/v3"
)

// The incumbent's LDAP connector defaults.
const (
	ustUserFilter  = "(&(objectClass=user)(objectCategory=person)(!(userAccountControl:1.2.840.113556.1.4.803:=2)))"
	ustGroupFormat = "(&(|(objectCategory=group)(objectClass=groupOfNames)(objectClass=posixGroup))(cn={group}))"
	ustMemberOf    = "(memberOf={group_dn})"
	// inChainRule is Active Directory's LDAP_MATCHING_RULE_IN_CHAIN.
	inChainRule = "1.2.840.113556.1.4.1941"
)

// adobeIDType is the expression that reads the incumbent's identity type
// adobeID as orgsync's vendorID.
const adobeIDType = `user.type.lowerAscii() == "adobeid" ? "vendorID" : user.type`

// templates are the incumbent's attribute formats with the orgsync keys
// they become under users: (the LDAP and Okta connectors share them).
var templates = []struct{ key, to string }{
	{"user_email_format", "email"},
	{"user_username_format", "username"},
	{"user_domain_format", "domain"},
	{"user_given_name_format", "firstname"},
	{"user_surname_format", "lastname"},
	{"user_country_code_format", "country"},
	{"user_identity_type_format", "type"},
}

// ldapConnector translates connector-ldap.yml.
func (m *migration) ldapConnector(src *source, f merged) {
	b, at := src.block, src.at
	m.ldapServer(src, f)
	base := f.get("base_dn")
	switch {
	case base == nil || base.str() == "":
		b.set("users.baseDN", "FILL IN", originOr(base, "no base_dn"))
		m.rep.add(Differs, []string{at + ".users.baseDN"}, "orgsync needs a base DN (the incumbent allows an empty one, e.g. for a global catalog): write the directory's root DN", base)
		m.rep.FillIn = append(m.rep.FillIn, at+".users.baseDN: the DN the users are under (the incumbent's base_dn is empty)")
	default:
		b.set("users.baseDN", base.str(), "from "+base.origin())
		b.set("groups.baseDN", base.str(), "from "+base.origin())
		m.rep.add(Translated, []string{at + ".users.baseDN", at + ".groups.baseDN"}, "", base)
	}
	uf := f.get("all_users_filter")
	filter := firstNonEmpty(uf.str(), ustUserFilter)
	b.set("users.filter", filter, originOr(uf, "the incumbent's default all_users_filter (Active Directory's enabled accounts)"))
	m.rep.add(Translated, []string{at + ".users.filter"}, "", uf)
	m.templates(src, f)
	m.ldapGroups(src, f)
	if s := f.get("search_page_size"); s != nil {
		if n, ok := intValue(s).(int); ok && n > 0 {
			b.set("pageSize", n, "from "+s.origin())
			m.rep.add(Translated, []string{at + ".pageSize"}, "", s)
		} else {
			m.rep.add(Differs, nil, "orgsync always pages its searches (1,000 entries a page by default)", s)
		}
	}
	if s := f.get("string_encoding"); s != nil {
		o, note := NoEquivalent, "LDAP values are UTF-8 (RFC 4511): orgsync reads them as such and reports a value that is not as a bad record"
		if isUTF8(s.str()) {
			o, note = Translated, "orgsync reads LDAP values as UTF-8"
		}
		m.rep.add(o, nil, note, s)
	}
}

// isUTF8 reports whether an encoding name of Python's is UTF-8.
func isUTF8(name string) bool {
	switch strings.ToLower(strings.ReplaceAll(name, "-", "_")) {
	case "utf8", "utf_8", "u8", "utf":
		return true
	}
	return false
}

// ldapServer translates the connection: host, TLS and the bind.
func (m *migration) ldapServer(src *source, f merged) {
	b, at := src.block, src.at
	host := f.get("host")
	url := host.str()
	if url != "" && !strings.Contains(url, "://") {
		url = "ldap://" + url
	}
	b.set("url", firstNonEmpty(url, "FILL IN"), originOr(host, "no host"))
	m.rep.add(Translated, []string{at + ".url"}, placeholderNote(host), host)
	if host == nil {
		m.rep.FillIn = append(m.rep.FillIn, at+".url: the connector file has no host")
	}
	tls := f.get("require_tls_cert")
	if v, _ := tls.boolean(); v {
		if strings.HasPrefix(url, "ldap://") {
			b.set("startTLS", true, "from "+tls.origin()+" (StartTLS before the bind, as the incumbent does for ldap://)")
		}
		m.rep.add(Translated, []string{at + ".startTLS"}, "the certificate is verified, as with require_tls_cert", tls)
	} else {
		m.rep.add(Differs, nil, "orgsync verifies the directory server's certificate whether or not this is set", tls)
		if strings.HasPrefix(url, "ldaps://") {
			m.rep.Differences = append(m.rep.Differences, "LDAPS certificates: without require_tls_cert the incumbent does not verify the directory server's certificate; orgsync always does: if it is not signed by a certificate authority this machine trusts, set "+at+".tls.caFile to that authority's PEM file (or, for a test only, tls.insecureSkipVerify)")
		}
	}
	m.ldapBind(src, f)
}

// ldapBind translates authentication_method, username and the password.
func (m *migration) ldapBind(src *source, f merged) {
	b, at := src.block, src.at
	method := f.get("authentication_method")
	user := f.get("username")
	pw, pwKey := f.get("password"), f.get("secure_password_key")
	kind := strings.ToLower(method.str())
	if kind == "" {
		kind = "simple"
	}
	if user.str() == "" && kind != "kerberos" {
		kind = "anonymous" // the incumbent binds anonymously without a username
	}
	switch kind {
	case "anonymous":
		m.rep.add(Translated, nil, "an anonymous bind: orgsync binds anonymously without bindDN", method, user)
		m.rep.add(NotUsed, nil, "an anonymous bind sends no password", pw, pwKey)
	case "simple", "ntlm":
		if kind == "ntlm" {
			b.set("bind", "ntlm", "from "+method.origin())
		}
		b.set("bindDN", user.str(), "from "+user.origin())
		m.rep.add(Translated, []string{at + ".bind"}, "", method)
		m.rep.add(Translated, []string{at + ".bindDN"}, joinNotes("orgsync accepts a DN and, for Active Directory, a user principal name or DOMAIN\\user", placeholderNote(user)), user)
		m.secretSetting(b, at+".password", "password", pw, pwKey, user.str(), "ORGSYNC_LDAP_PASSWORD", "the LDAP password")
		if kind == "ntlm" {
			m.rep.Secrets = append(m.rep.Secrets, at+".password: the incumbent's NTLM password may be the password's hash: if so, write it under ntHash (32 hexadecimal digits, the NT part) instead of password")
		}
	case "kerberos":
		b.set("bind", "kerberos", "from "+method.origin())
		b.set("bindDN", "FILL IN: the service account's principal, e.g. svc-orgsync@CORP.EXAMPLE.COM", "the incumbent used the Windows sign-in of the account it ran as")
		b.set("kerberos.keytab", "FILL IN: a keytab of the principal", "the incumbent used the Windows sign-in of the account it ran as")
		m.rep.add(Differs, []string{at + ".bind", at + ".kerberos"}, "the incumbent's Kerberos bind used the ticket of the Windows account it ran as (Windows only); orgsync binds with the keys of a keytab, a credentials cache kept by kinit -k, or a password, from Linux too (docs/sources.md, Binds)", method)
		m.rep.FillIn = append(m.rep.FillIn, at+".bindDN and "+at+".kerberos.keytab (or kerberos.ccache): the Kerberos principal and its keytab (ktpass, or samba-tool domain exportkeytab)")
		m.rep.add(NotUsed, nil, "the incumbent refuses a username or password with the kerberos method", user, pw, pwKey)
	default:
		m.rep.add(NoEquivalent, nil, fmt.Sprintf("%q is not an authentication method of the incumbent (simple, anonymous, kerberos, ntlm): it refuses it", method.str()), method).risk(Refused)
	}
}

// templates translates the attribute formats: the incumbent's format
// strings ({mail}) are orgsync's templates.
func (m *migration) templates(src *source, f merged) {
	for _, t := range templates {
		s := f.get(t.key)
		if s == nil {
			continue
		}
		tmpl, err := pythonFormat(s.str())
		if err != nil {
			m.rep.add(NoEquivalent, nil, err.Error()+"; without it orgsync reads the field its own way (docs/sources.md), so users may be known or named otherwise", s).risk(AppliesMore)
			continue
		}
		key := src.users + t.to
		switch {
		case t.to == "username" && !m.federated(f):
			m.rep.add(NotUsed, nil, "the users are not Federated IDs: their username is their email (the incumbent's documentation says not to set it for them)", s)
			continue
		case t.to == "type":
			src.item.set("set.type", adobeIDType, "the incumbent's adobeID is orgsync's vendorID")
			m.rep.add(Differs, []string{src.at + "." + key, "sources[0].set.type"}, "an entry whose type is not an identity type is a bad record for orgsync (reported; nobody loses access in that run), where the incumbent skips it", s)
		case t.to == "country":
			m.rep.add(Differs, []string{src.at + "." + key}, "orgsync checks the country code (ISO 3166-1 alpha-2): a bad one makes the entry a bad record (reported; nobody loses access in that run), where the incumbent sends it and the service refuses that user", s)
		default:
			m.rep.add(Translated, []string{src.at + "." + key}, "", s)
		}
		src.block.set(key, tmpl, "from "+s.origin())
	}
}

// federated reports whether the users may be Federated IDs (their
// identity type, or its template, says so): only they have a username of
// their own.
func (m *migration) federated(f merged) bool {
	if f.get("user_identity_type_format") != nil {
		return true
	}
	t := firstNonEmpty(f.get("user_identity_type").str(), m.main.get("directory_users.user_identity_type").str())
	return strings.EqualFold(t, "federatedID")
}

// pythonFormat returns an incumbent format string ("{mail}",
// "{sAMAccountName}@example.com") as an orgsync template: the same, as
// long as it only names attributes.
func pythonFormat(format string) (string, error) {
	for _, field := range regexp.MustCompile(`\{([^{}]*)\}`).FindAllStringSubmatch(strings.NewReplacer("{{", "", "}}", "").Replace(format), -1) {
		if !regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_;-]*$`).MatchString(field[1]) {
			return "", fmt.Errorf("the format %q uses {%s}, a Python formatting orgsync's templates do not have (they name attributes: {mail}): an expression (set.<field>) can compute it", format, field[1])
		}
	}
	return format, nil
}

// ldapGroups translates how the incumbent finds groups and their members:
// group_filter_format, group_member_filter_format or two_steps_lookup, and
// dynamic_group_member_attribute.
func (m *migration) ldapGroups(src *source, f merged) {
	b, at := src.block, src.at
	gf := f.get("group_filter_format")
	filter, nameAttr, ok := splitGroupFilter(firstNonEmpty(gf.str(), ustGroupFormat))
	if !ok {
		m.rep.add(NoEquivalent, nil, "orgsync finds a group by its name attribute within groups.filter: the format must hold {group} once, as (attribute={group}); migrate kept the incumbent's default filter, which may find other groups", gf).risk(AppliesMore)
		filter, nameAttr, _ = splitGroupFilter(ustGroupFormat)
	} else {
		m.rep.add(Translated, []string{at + ".groups.filter", at + ".groups.nameAttribute"}, "", gf)
	}
	b.set("groups.filter", filter, originOr(gf, "the incumbent's default group_filter_format, without its (cn={group})"))
	if !strings.EqualFold(nameAttr, "cn") {
		b.set("groups.nameAttribute", nameAttr, originOr(gf, ""))
	}
	modes, nested, ad := m.membership(src, f)
	additional := m.main.get("directory_users.additional_groups") != nil
	dyn := f.get("dynamic_group_member_attribute")
	switch {
	case additional && dyn != nil && strings.EqualFold(dyn.str(), "memberOf"):
		if !containsFold(modes, "memberOf") {
			modes = append(modes, "memberOf")
		}
		m.rep.add(Translated, []string{at + ".groups.membership"}, "the additional group rules see the groups the users' memberOf names, as with the incumbent", dyn)
	case additional && dyn != nil:
		m.rep.add(NoEquivalent, []string{at + ".groups.membership"}, "orgsync reads a user's own groups from memberOf only; migrate added the memberOf mode, the closest, which may give the additional group rules other groups", dyn).risk(AppliesMore)
		modes = append(modes, "memberOf")
	case additional:
		m.rep.refused(f.name()+": dynamic_group_member_attribute (not set)", "the incumbent refuses additional_groups without it; migrate added the memberOf mode, which it means")
		modes = append(modes, "memberOf")
	case dyn != nil:
		m.rep.add(NotUsed, nil, "the incumbent reads it only for additional_groups, which this configuration has none of", dyn)
	}
	if ad {
		b.set("flavor", "activedirectory", "the in-chain matching rule of group_member_filter_format is Active Directory's")
	}
	b.set("groups.membership", modes, "how the incumbent finds members (group_member_filter_format or two_steps_lookup)")
	b.set("groups.nested", nested, "nested groups as the incumbent resolves them")
}

// membership translates group_member_filter_format or two_steps_lookup
// into orgsync's membership modes and nesting.
func (m *migration) membership(src *source, f merged) (modes []string, nested, ad bool) {
	at := src.at
	two := f.get("two_steps_lookup")
	mf := f.get("group_member_filter_format")
	if two != nil && !two.isNull() {
		two.done = true
		attr := f.get("two_steps_lookup.group_member_attribute_name")
		ns := f.get("two_steps_lookup.nested_group")
		nested, _ = ns.boolean()
		m.rep.add(Translated, []string{at + ".groups.nested"}, "", ns)
		if mf != nil {
			m.rep.add(NotUsed, nil, "the incumbent refuses group_member_filter_format with two_steps_lookup: two_steps_lookup is translated", mf)
		}
		switch a := attr.str(); {
		case strings.EqualFold(a, "member"), strings.EqualFold(a, "uniqueMember"):
			m.rep.add(Translated, []string{at + ".groups.membership"}, "the group's member list, as the incumbent's second step reads it", attr)
			return []string{canonicalMode(a)}, nested, false
		default:
			m.rep.add(NoEquivalent, []string{at + ".groups.membership"}, fmt.Sprintf("orgsync reads member lists from member, uniqueMember (DNs) or memberUid (uids); %q is none: migrate used member, which may find other members", a), attr).risk(AppliesMore)
			return []string{"member"}, nested, false
		}
	}
	form := strings.ReplaceAll(firstNonEmpty(mf.str(), ustMemberOf), " ", "")
	if !strings.HasPrefix(form, "(") {
		form = "(" + form + ")"
	}
	switch {
	case strings.EqualFold(form, ustMemberOf):
		m.rep.add(Translated, []string{at + ".groups.membership"}, "the users' memberOf, direct members only, as the incumbent's filter finds them", mf)
		return []string{"memberOf"}, false, false
	case strings.EqualFold(form, "(memberOf:"+inChainRule+":={group_dn})"):
		m.rep.add(Translated, []string{at + ".flavor", at + ".groups.membership"}, "Active Directory's in-chain rule: members of nested groups count; orgsync asks the same of the server", mf)
		return []string{"member"}, true, true
	default:
		m.rep.add(NoEquivalent, []string{at + ".groups.membership"}, fmt.Sprintf("orgsync knows a member from the group's member list or the user's memberOf, not from a filter such as %q: migrate used memberOf (direct members), the closest, which may find other members; check it with orgsync plan --explain", mf.str()), mf).risk(AppliesMore)
		return []string{"memberOf"}, false, false
	}
}

// canonicalMode spells a membership attribute as orgsync's mode.
func canonicalMode(attr string) string {
	if strings.EqualFold(attr, "uniqueMember") {
		return "uniqueMember"
	}
	return "member"
}

func containsFold(list []string, s string) bool {
	for _, l := range list {
		if strings.EqualFold(l, s) {
			return true
		}
	}
	return false
}

// groupClause is the part of a group_filter_format that names the group.
var groupClause = regexp.MustCompile(`\(\s*([A-Za-z][A-Za-z0-9-]*)\s*=\s*\{group\}\s*\)`)

// splitGroupFilter splits the incumbent's group_filter_format into the
// filter of every group and the attribute that holds a group's name: the
// format's (attribute={group}) taken out. ok is false when {group} is used
// otherwise or the rest is not a filter.
func splitGroupFilter(format string) (filter, nameAttr string, ok bool) {
	loc := groupClause.FindAllStringSubmatchIndex(format, -1)
	if len(loc) != 1 || strings.Count(format, "{group}") != 1 {
		return "", "", false
	}
	nameAttr = format[loc[0][2]:loc[0][3]]
	rest := format[:loc[0][0]] + format[loc[0][1]:]
	filter = simplifyAnd(strings.TrimSpace(rest))
	if filter == "" || filter == "(&)" {
		filter = "(objectClass=*)"
	}
	if _, err := ldap3.CompileFilter(filter); err != nil {
		return "", "", false
	}
	return filter, nameAttr, true
}

// simplifyAnd returns (&X) with a single component as X.
func simplifyAnd(f string) string {
	inner, ok := strings.CutPrefix(f, "(&")
	if !ok || !strings.HasSuffix(inner, ")") {
		return f
	}
	inner = strings.TrimSpace(inner[:len(inner)-1])
	if len(components(inner)) == 1 {
		return inner
	}
	return f
}

// components splits a list of parenthesized filters at the top level.
func components(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			if depth == 0 {
				start = i
			}
			depth++
		case ')':
			if depth--; depth == 0 {
				out = append(out, s[start:i+1])
			}
		}
	}
	return out
}
