package migrate

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// identityTypes are the incumbent's identity types with their orgsync
// names, by the lower-case spelling the incumbent accepts.
var identityTypes = map[string]string{
	"adobeid":      "vendorID",
	"vendorid":     "vendorID",
	"enterpriseid": "enterpriseID",
	"federatedid":  "federatedID",
}

// source is the directory source being written: its kind's block, where
// its users' defaults go, and the item of sources: it is in.
type source struct {
	item  *node  // the item of sources:
	block *node  // its ldap:, csv: or okta: block
	kind  string // ldap, csv or okta
	at    string // "sources[0].ldap"
	users string // the prefix of the users' keys in the block: "users." or ""
	// caseFold is set when the incumbent finds a directory group by name
	// regardless of letter case (an LDAP search), as for a selection by
	// group.
	caseFold bool
	// columns are a CSV source's renamed columns, each with the user
	// field it holds (what the hook's source_attributes[column] is).
	columns map[string]string
}

// translateDirectory translates directory_users: the connector the
// incumbent runs with (the others are reported as not used), the default
// identity type and country, the group mapping, the additional group
// rules, group creation, the extension, and the selection of users.
func (m *migration) translateDirectory() {
	if s := m.main.get("directory_users"); s == nil {
		m.rep.FillIn = append(m.rep.FillIn, "the main file has no directory_users (the incumbent requires it): add a source under sources: by hand")
	} else {
		s.done = true
	}
	src := m.translateConnectors()
	m.translateGroups(src)
	m.translateAdditionalGroups(src)
	if s := m.main.get("directory_users.group_sync_options"); s != nil {
		s.done = true
	}
	if s := m.main.get("directory_users.group_sync_options.auto_create"); s != nil {
		if v, _ := s.boolean(); v {
			n := m.root.set("policy.createUserGroups", true, "from "+s.origin())
			n.proposal = m.groupsOff()
		}
		m.rep.add(Translated, []string{"policy.createUserGroups"}, "creates the missing target groups as user groups, as the incumbent does (a misspelt product profile becomes a user group in both: review the plan)", s)
	}
	m.translateExtension(src)
	m.translateSelection(src)
}

// translateConnectors translates the connector the incumbent runs with
// and reports the others; it returns the source written (nil when the
// connector has no orgsync equivalent).
func (m *migration) translateConnectors() *source {
	conns := m.main.get("directory_users.connectors")
	if conns != nil {
		conns.done = true
	}
	var chosen merged
	var chosenAt *setting
	for _, c := range m.main.children("directory_users.connectors") {
		kind := strings.ReplaceAll(c.canon[strings.LastIndex(c.canon, ".")+1:], "vendor_console", "adobe_console")
		files := m.connectorFiles(c)
		if kind != m.inv.connector {
			m.rep.add(NotUsed, nil, fmt.Sprintf("the incumbent runs with the %s connector (%s): this one is not translated", m.inv.connector, m.inv.opt("connector").from()), tree(c)...)
			for _, f := range files {
				for _, s := range f.order {
					if !s.done {
						m.rep.add(NotUsed, nil, "in the file of the "+kind+" connector, which the incumbent does not run with", s)
					}
				}
			}
			continue
		}
		chosen, chosenAt = files, c
	}
	if chosenAt != nil {
		m.rep.add(Translated, []string{"sources[0]." + orgsyncKind(m.inv.connector)}, "the connector the incumbent runs with", tree(chosenAt)...)
	}
	return m.translateConnector(chosen)
}

// connectorFiles reads the file or files a connector setting names.
func (m *migration) connectorFiles(c *setting) merged {
	var files merged
	for _, name := range c.strings() {
		f, err := m.readNamed(c, name)
		if err != nil {
			m.rep.FillIn = append(m.rep.FillIn, err.Error())
			continue
		}
		files = append(files, f)
	}
	return files
}

// orgsyncKind is the orgsync source kind of an incumbent connector.
func orgsyncKind(connector string) string {
	if connector == "adobe_console" {
		return "(none)"
	}
	return connector
}

// translateConnector writes the source of the connector the incumbent
// runs with, from its files.
func (m *migration) translateConnector(files merged) *source {
	kind := m.inv.connector
	if kind == "adobe_console" {
		m.consoleConnector(files)
		for _, k := range []string{"user_identity_type", "default_country_code"} {
			m.rep.add(NoEquivalent, nil, "no orgsync source to apply it to (see the adobe_console connector)", m.main.get("directory_users."+k))
		}
		return nil
	}
	item := m.root.child("sources").item()
	src := &source{item: item, kind: kind, at: "sources[0]." + kind, users: "users.", caseFold: kind == "ldap"}
	src.block = item.child(kind)
	src.block.comment = fmt.Sprintf("the %s connector (%s)", kind, m.inv.opt("connector").from())
	switch kind {
	case "ldap":
		m.ldapConnector(src, files)
	case "okta":
		m.oktaConnector(src, files)
	case "csv":
		src.users = ""
		m.csvConnector(src, files)
	}
	m.userDefaults(src, files)
	return src
}

// consoleConnector reports the adobe_console connector, which reads the
// users of another organization of the service: orgsync has no such
// source.
func (m *migration) consoleConnector(files merged) {
	note := "orgsync has no source that reads another organization of the service; closest: export that organization's users (orgsync users list --org NAME --output json, with that organization as a target) into a CSV or YAML file and sync from it"
	for _, f := range files {
		for _, s := range f.order {
			m.rep.add(NoEquivalent, nil, note, s)
		}
	}
	m.rep.FillIn = append(m.rep.FillIn, "sources: the incumbent reads its users from another organization (the adobe_console connector), which orgsync cannot: add a source by hand ("+note+")")
}

// userDefaults writes the identity type and country of users whose
// directory entry has none: the connector's user_identity_type wins over
// directory_users.user_identity_type, whose default is enterpriseID.
func (m *migration) userDefaults(src *source, files merged) {
	main, own := m.main.get("directory_users.user_identity_type"), files.get("user_identity_type")
	typ, from := "enterpriseid", "the incumbent's default identity type, enterpriseID (no user_identity_type): orgsync's default is federatedID"
	switch {
	case own != nil && own.str() != "":
		typ, from = strings.ToLower(own.str()), "from "+own.origin()
		m.rep.add(Translated, []string{src.at + "." + src.users + "defaultType"}, "", own)
		m.rep.add(NotUsed, nil, "the connector's user_identity_type ("+own.origin()+") wins over it", main)
	case main != nil && main.str() != "":
		typ, from = strings.ToLower(main.str()), "from "+main.origin()
		m.rep.add(Translated, []string{src.at + "." + src.users + "defaultType"}, "", main)
		m.rep.add(NotUsed, nil, "empty: the main file's user_identity_type applies", own)
	default:
		m.rep.add(NotUsed, nil, "empty: the incumbent's default applies", main, own)
	}
	t, ok := identityTypes[typ]
	if !ok {
		m.rep.refused(firstSetting(own, main).where(), fmt.Sprintf("user_identity_type %q is not an identity type: the incumbent refuses it; migrate wrote federatedID: fix it", typ))
		t = "federatedID"
	}
	src.block.set(src.users+"defaultType", t, from)
	m.defaultCountry(src)
}

// defaultCountry writes directory_users.default_country_code.
func (m *migration) defaultCountry(src *source) {
	s := m.main.get("directory_users.default_country_code")
	if s == nil || s.str() == "" {
		return
	}
	c := strings.ToUpper(s.str())
	if c == "UD" {
		m.rep.add(Differs, nil, "UD (undefined) is no country code for orgsync: it sends no country, which the service treats the same way for Enterprise and independent IDs (the user chooses at first sign-in); a Federated ID needs a real one", s)
		return
	}
	src.block.set(src.users+"defaultCountry", c, "from "+s.origin())
	m.rep.add(Translated, []string{src.at + "." + src.users + "defaultCountry"}, "used when the directory gives a user no country, as with the incumbent", s)
}

// translateGroups translates directory_users.groups into exact mapping
// rules: one a directory group with target groups.
func (m *migration) translateGroups(src *source) {
	groups := m.main.get("directory_users.groups")
	if groups == nil {
		return
	}
	groups.done = true
	for _, item := range m.main.children("directory_users.groups") {
		dir := m.main.get(item.canon + ".directory_group")
		targets := m.main.get(item.canon + ".adobe_groups")
		name := dir.str()
		if name == "" {
			m.rep.add(Unknown, nil, "a mapping item without directory_group: the incumbent refuses it", itemSettings(item, dir, targets)...)
			continue
		}
		if !slices.Contains(m.mapped, name) {
			m.mapped = append(m.mapped, name)
		}
		names := m.qualified(targets.strings())
		m.known = append(m.known, names...)
		if len(names) == 0 {
			m.rep.add(Translated, nil, "maps to no target group: no rule (its members still count as mapped users for users: mapped)", itemSettings(item, dir, targets)...)
			continue
		}
		rule := m.mappingRule(item)
		o, note := Translated, ""
		if src != nil && src.kind == "csv" {
			// The incumbent's CSV connector compares group names exactly;
			// orgsync's exact rules ignore letter case, its patterns
			// can heed it.
			rule.set("pattern", "(?-i:"+regexp.QuoteMeta(name)+")", "from "+dir.origin()+" (the name, letter case heeded, as the incumbent's CSV connector compares it)")
		} else {
			rule.set("directory", name, "from "+dir.origin())
			o, note = Differs, "a mapped group the directory lacks fails the orgsync run (a renamed group must not strip everybody's access), where the incumbent only warns and syncs without it"
		}
		rule.set("targets", names, "from "+firstSetting(targets, dir).origin())
		m.rep.add(o, []string{fmt.Sprintf("mapping[%d]", m.ruleIndex())}, note, itemSettings(item, dir, targets)...)
	}
}

// mappingRule adds a rule to mapping: (commented out when the incumbent
// does not process groups).
func (m *migration) mappingRule(from *setting) *node {
	mp := m.root.child("mapping")
	if mp.comment == "" {
		mp.comment = "from " + from.file.name + ": directory_users.groups, additional_groups"
		if m.groupsOff() {
			mp.proposal = true
			mp.comment = "commented out: the incumbent does not process groups (process_groups off, " + m.inv.opt("process_groups").from() + ")"
		}
	}
	return mp.item()
}

// groupsOff reports whether the incumbent runs without processing groups:
// then orgsync must manage none, and what would manage some is written
// commented out.
func (m *migration) groupsOff() bool { return !m.inv.opt("process_groups").on() }

// ruleIndex is the index of the last rule of mapping:.
func (m *migration) ruleIndex() int { return len(m.root.child("mapping").kids) - 1 }

// itemSettings returns a list item and its keys that a translation
// reads (nil ones left out): the item's other keys are not accounted for,
// so that a misspelt one is reported as unknown.
func itemSettings(item *setting, keys ...*setting) []*setting {
	return append([]*setting{item}, keys...)
}

// qualified returns target group names with their organization renamed
// as orgsync names it (org2::Group).
func (m *migration) qualified(names []string) []string {
	var out []string
	for _, n := range names {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		if org, g, ok := strings.Cut(n, "::"); ok {
			n = m.orgsyncName(org) + "::" + g
		}
		out = append(out, n)
	}
	return out
}

// translateAdditionalGroups translates directory_users.additional_groups
// into pattern rules.
func (m *migration) translateAdditionalGroups(src *source) {
	s := m.main.get("directory_users.additional_groups")
	if s == nil {
		return
	}
	s.done = true
	items := m.main.children("directory_users.additional_groups")
	for _, item := range items {
		from, to := m.main.get(item.canon+".source"), m.main.get(item.canon+".target")
		if src != nil && src.kind == "okta" {
			m.rep.add(NotUsed, nil, "the incumbent's Okta connector ignores additional_groups: no rule", itemSettings(item, from, to)...)
			continue
		}
		if from.str() == "" || to.str() == "" {
			m.rep.add(NoEquivalent, nil, "an additional group rule needs both source and target: the incumbent refuses it", itemSettings(item, from, to)...).risk(Refused)
			continue
		}
		pattern, targets, note, err := additionalRule(from.str(), to.str())
		if err != nil {
			m.rep.add(NoEquivalent, nil, err.Error()+": no rule, so the groups it gives are not given (and taken away where another rule manages them)", itemSettings(item, from, to)...).riskIf(!m.groupsOff(), AppliesMore)
			continue
		}
		targets = m.qualified([]string{targets})[0]
		rule := m.mappingRule(item)
		rule.set("pattern", pattern, "from "+from.origin()+" (case-sensitive, as the incumbent's)")
		rule.set("targets", []string{targets}, "from "+firstSetting(to, from).origin())
		// Two directory groups giving one target group stop the
		// incumbent's whole run; orgsync takes their union. That can
		// happen when the target keeps nothing of the name, or between
		// two rules.
		conflict := !strings.Contains(to.str(), `\`) || len(items) > 1
		m.rep.add(Differs, []string{fmt.Sprintf("mapping[%d]", m.ruleIndex())}, joinNotes(note, "two directory groups giving one target group stop the incumbent's run (it applies nothing); orgsync takes their union"), itemSettings(item, from, to)...).riskIf(conflict && !m.groupsOff(), AppliesMore)
	}
}

func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}

// translateSelection writes the source's filter expression: the users the
// incumbent selects (--users mapped or group, --user-filter) and what the
// extension proposes.
func (m *migration) translateSelection(src *source) {
	if src == nil {
		return
	}
	m.usersSelection(src)
	if f := m.inv.opt("user_filter"); f.first() != "" {
		if test, ok := selectionCEL(`(user.username != "" ? user.username : user.email)`, f.values[0]); ok {
			m.filters = append(m.filters, test)
			m.optionEntry("user_filter", Differs, []string{"sources[0].filter"}, "users the filter rejects are left alone by orgsync; the incumbent treats those in the organization as users only there (their groups removed, or removed, per adobe_only_user_action)")
		} else {
			_, err := pythonRegexp(f.values[0])
			m.optionEntry("user_filter", NoEquivalent, nil, fmt.Sprintf("%v: orgsync selects every directory user, more than the incumbent: write the selection as a filter expression (docs/sources.md)", err)).risk(AppliesMore)
		}
	}
	if len(m.filters) > 0 {
		src.item.set("filter", strings.Join(m.filters, " && "), "the users the incumbent selects ("+m.selectionOrigin()+")")
	}
}

// selectionOrigin names the options the filter comes from.
func (m *migration) selectionOrigin() string {
	var out []string
	for _, n := range []string{"users", "user_filter"} {
		if o := m.inv.opt(n); o.first() != "" && !(n == "users" && o.first() == "all") {
			out = append(out, o.from())
		}
	}
	if len(out) == 0 {
		return "the connector"
	}
	return strings.Join(out, ", ")
}

// usersSelection adds the filter of --users mapped and --users group (and
// reports --users all and file).
func (m *migration) usersSelection(src *source) {
	var groups []string
	switch m.inv.users {
	case "mapped":
		groups = m.mapped
	case "group":
		groups = m.inv.usersGroups
	case "all":
		if src.kind == "okta" {
			groups = m.mapped // the incumbent's Okta connector reads only the members of the mapped groups
		}
		m.optionEntry("users", Translated, nil, "every user of the directory: orgsync's default")
		if groups == nil {
			return
		}
	case "file":
		m.optionEntry("users", Translated, []string{src.at + ".path"}, "the file is the source")
		return
	default:
		return
	}
	if len(groups) == 0 {
		m.optionEntry("users", NoEquivalent, nil, "no directory group to select by: orgsync takes every directory user, more than the incumbent").risk(AppliesMore)
		return
	}
	m.filters = append(m.filters, groupFilter(groups, src.caseFold))
	if m.inv.users != "all" {
		m.optionEntry("users", Differs, []string{"sources[0].filter"},
			"orgsync takes the members of these directory groups as the incumbent does, but leaves the other directory users alone where the incumbent treats those in the organization as users only there (adobe_only_user_action applies to them); users in no source are treated the same by both. For a one-off run over some groups: orgsync plan --scope-groups G1,G2")
	}
}

// groupFilter is the expression that keeps the members of groups.
func groupFilter(groups []string, fold bool) string {
	quoted := make([]string, len(groups))
	for i, g := range groups {
		if fold {
			g = strings.ToLower(g)
		}
		quoted[i] = celString(g)
	}
	list := "[" + strings.Join(quoted, ", ") + "]"
	if fold {
		return "directoryGroups.exists(g, g.lower() in " + list + ")" // lower(), as strings.ToLower above
	}
	return "directoryGroups.exists(g, g in " + list + ")"
}
