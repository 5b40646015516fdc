package migrate

import (
	"fmt"
	"strconv"
	"strings"
)

// translatePolicy translates adobe_users (exclusions, attributes to
// update), limits and the invocation options that decide what a run does:
// the action on users only in the organization, group processing, the
// strategy, test mode and the scope.
func (m *migration) translatePolicy() {
	if s := m.main.get("adobe_users"); s != nil {
		s.done = true
	}
	m.exclusions()
	m.updateAttributes()
	m.unmatched()
	m.limits()
	m.scope()
	m.runOptions()
}

// exclusions translates exclude_identity_types, exclude_adobe_groups and
// exclude_users: users orgsync never touches, as the incumbent.
func (m *migration) exclusions() {
	if s := m.main.get("adobe_users.exclude_identity_types"); s != nil {
		var types, bad []string
		for _, t := range s.strings() {
			if o, ok := identityTypes[strings.ToLower(t)]; ok {
				types = append(types, o)
			} else {
				bad = append(bad, fmt.Sprintf("%q", t))
			}
		}
		a := m.setList("policy.exclude.identityTypes", types, s, "the incumbent's adobeID is orgsync's vendorID; excluded users are never touched, by either tool")
		if len(bad) > 0 {
			m.rep.Entries[a.from].Outcome = NoEquivalent
			m.rep.Entries[a.from].Note = strings.Join(bad, ", ") + " is not an identity type (the incumbent refuses it): left out"
			a.risk(Refused)
		}
	}
	if s := m.main.get("adobe_users.exclude_adobe_groups"); s != nil {
		m.excludeGroups(s)
	}
	if s := m.main.get("adobe_users.exclude_users"); s != nil {
		m.excludeUsers(s)
	}
}

// excludeGroups translates exclude_adobe_groups: groups of the primary
// organization whose members the incumbent never touches.
func (m *migration) excludeGroups(s *setting) {
	groups := m.qualified(s.strings())
	m.known = append(m.known, groups...)
	for _, g := range groups {
		if strings.Contains(g, "::") {
			m.setList("policy.exclude.groups", groups, s, "")
			e := &m.rep.Entries[len(m.rep.Entries)-1]
			e.Outcome, e.Note, e.Risk = NoEquivalent, fmt.Sprintf("%q is a group of a secondary organization: the incumbent refuses it (it excludes by the groups of the primary only)", g), Refused
			return
		}
	}
	if !m.multi {
		m.setList("policy.exclude.groups", groups, s, "members of these groups are never touched, as with the incumbent")
		return
	}
	m.multiOrgExclusion(s, groups)
}

// excludeUsers translates exclude_users: Python expressions matched
// against the whole username, ignoring letter case. One Go cannot read is
// replaced by a wider one that protects every user it protects, when
// there is one.
func (m *migration) excludeUsers(s *setting) {
	var res, problems []string
	for _, p := range s.strings() {
		re, err := pythonRegexp(p)
		if err == nil {
			res = append(res, "(?i)^(?:"+re+")$")
			continue
		}
		if wide, ok := widenRegexp(p); ok {
			res = append(res, "(?i)^(?:"+wide+")$")
			problems = append(problems, fmt.Sprintf("%v; migrate wrote in its place %q, which protects every user it protects and maybe more (check the users it also protects)", err, wide))
			continue
		}
		problems = append(problems, fmt.Sprintf("%v, and migrate has no expression that protects at least the same users: left out, so the users it protected are not protected: write an expression that matches them all", err))
	}
	a := m.setList("policy.exclude.usernames", res, s, "anchored and case-insensitive, as the incumbent matches them, against the username (the email when there is none)")
	if len(problems) > 0 {
		m.rep.Entries[a.from].Outcome = NoEquivalent
		m.rep.Entries[a.from].Note = strings.Join(problems, "; ")
		a.risk(RemovesProtection)
	}
}

// setList writes a list setting of the policy (or reports an empty one).
func (m *migration) setList(key string, list []string, s *setting, note string) added {
	if len(list) == 0 {
		return m.rep.add(Translated, nil, "empty: nothing to translate", s)
	}
	m.root.set(key, list, "from "+s.origin())
	return m.rep.add(Translated, []string{key}, note, s)
}

// updateAttributes translates update_user_info and update_attributes.
func (m *migration) updateAttributes() {
	s := m.main.get("adobe_users.update_attributes")
	on := m.inv.opt("update_user_info").on()
	if !on {
		m.root.set("policy.updateAttributes", []string{}, "update_user_info is off ("+m.inv.opt("update_user_info").from()+"): no attribute is updated")
		m.optionEntry("update_user_info", Translated, []string{"policy.updateAttributes"}, "off: orgsync updates no attribute of existing users")
		m.rep.add(NotUsed, nil, "update_user_info is off: the incumbent updates nothing", s)
		return
	}
	attrs, from := []string{"firstname", "lastname", "email"}, "the incumbent's default update_attributes"
	var bad []string
	if s != nil {
		attrs, from = nil, "from "+s.origin()
		for _, a := range s.strings() {
			a = strings.ToLower(strings.TrimSpace(a))
			switch a {
			case "firstname", "lastname", "email", "username":
				attrs = append(attrs, a)
			default:
				bad = append(bad, fmt.Sprintf("%q", a))
			}
		}
	}
	m.root.set("policy.updateAttributes", attrs, from+" (update_user_info on)")
	note := "the attributes of the directory's users in the organization, as the incumbent updates them (neither changes an independent ID's, which its owner keeps)"
	if m.multi {
		note += "; in the primary organization only, as the incumbent: each secondary organization's policy updates none"
	}
	m.optionEntry("update_user_info", Translated, []string{"policy.updateAttributes"}, "on")
	if len(bad) > 0 {
		m.rep.add(NoEquivalent, []string{"policy.updateAttributes"}, strings.Join(bad, ", ")+" is not an attribute the incumbent updates (it refuses it): left out", s).risk(Refused)
		return
	}
	m.rep.add(Translated, []string{"policy.updateAttributes"}, note, s)
}

// unmatched translates adobe_only_user_action (with process_groups and
// the strategy) into policy.unmatchedUsers and policy.reportFile.
func (m *migration) unmatched() {
	groups := m.inv.opt("process_groups").on()
	policy, note := "preserve", ""
	o := Translated
	switch m.inv.action {
	case "":
		note = "the push strategy processes no user only in the organization: orgsync preserves them"
	case "exclude":
		note = "users only in the organization are left alone, as with exclude"
	case "preserve", "write-file":
		if groups {
			policy, note = "remove-groups", "with process_groups the incumbent's preserve takes the mapped groups away from users only in the organization: orgsync's remove-groups"
		} else {
			note = "without process_groups the incumbent leaves users only in the organization alone"
		}
	case "remove-adobe-groups":
		policy, o = "remove-groups", Differs
		note = "the incumbent takes every group away (admin roles and groups it does not manage too); orgsync's remove-groups takes away the managed groups only, never the others"
	case "remove", "delete":
		policy = m.inv.action
		note = "as the incumbent: " + m.inv.action + " users only in the organization (independent IDs are removed, never deleted)"
		if m.inv.adobeUsers != "all" {
			policy, o = "remove-groups", Differs
			note = fmt.Sprintf("the incumbent's adobe_users %s limits it to users of %s; orgsync's %s would act on every user of the organization in no source, so migrate wrote remove-groups (which only takes the managed groups away); write %s once the plan shows the users you expect", m.inv.adobeUsers, m.adobeUsersGroups(), m.inv.action, m.inv.action)
		}
	}
	if m.inv.action == "write-file" {
		m.root.set("policy.reportFile", m.pathFor(m.inv.writeFile), "from "+m.inv.opt("adobe_only_user_action").from()+" (write-file)")
		note += "; the list of those users is written to policy.reportFile at every plan, as a CSV that scope.usersFile (--users-file) reads back"
	}
	m.root.set("policy.unmatchedUsers", policy, "from "+m.inv.opt("adobe_only_user_action").from()+groupsNote(groups))
	m.optionEntry("adobe_only_user_action", o, []string{"policy.unmatchedUsers"}, note)
	m.optionEntry("process_groups", Translated, []string{"mapping", "policy.unmatchedUsers"}, processGroupsNote(groups))
	m.optionEntry("strategy", strategyOutcome(m.inv.opt("strategy").first()), nil, strategyNote(m.inv.opt("strategy").first()))
}

func groupsNote(on bool) string {
	if on {
		return ", with process_groups"
	}
	return ", without process_groups"
}

func processGroupsNote(on bool) string {
	if on {
		return "the mapping's target groups are managed: memberships are added and taken away to match the directory"
	}
	return "off: the mapping is written commented out, so that orgsync changes no membership (orgsync has no switch: a group is managed when a rule names it)"
}

func strategyOutcome(s string) Outcome {
	if s == "push" {
		return Differs
	}
	return Translated
}

func strategyNote(s string) string {
	if s == "push" {
		return "orgsync has no push strategy: it reads the organization (only what the plan needs) and never acts on users only in the organization under policy.unmatchedUsers: preserve, which gives the same changes as a push of the same users"
	}
	return "orgsync compares the directory with the organization, as the incumbent's sync strategy"
}

// adobeUsersGroups names the groups of --adobe-users.
func (m *migration) adobeUsersGroups() string {
	if m.inv.adobeUsers == "group" {
		return strings.Join(m.inv.adobeGroups, ", ")
	}
	return "the mapped groups"
}

// limits translates limits.max_adobe_only_users and group_removals_only.
func (m *migration) limits() {
	if s := m.main.get("limits"); s != nil {
		s.done = true
	}
	s := m.main.get("limits.max_adobe_only_users")
	if g := m.main.get("limits.group_removals_only"); g != nil {
		m.groupRemovalsOnly(g)
	}
	if s == nil {
		m.root.set("safety.maxRemovals", "10%", "orgsync's default, written: the incumbent has no limit without limits.max_adobe_only_users (it refuses such a file)")
		m.rep.refused(m.main.name+": limits.max_adobe_only_users (not set)", "the incumbent requires it and refuses the file without it: migrate wrote orgsync's default safety.maxRemovals, 10% of the managed users")
		return
	}
	text := strings.TrimSpace(s.str())
	note := "over the limit orgsync applies what adds and holds what takes away (users losing groups, removals) for approval (safety.onLimit: hold), where the incumbent skips the action on users only in the organization; orgsync counts every user losing access, a percentage is of the users orgsync manages (the incumbent's: of the organization's users not excluded)"
	if pct, ok := strings.CutSuffix(text, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(pct), 64)
		switch {
		case err != nil || f < 0 || f > 100:
			m.rep.add(NoEquivalent, nil, "not a count or a percentage (the incumbent refuses it): orgsync's default, 10%, applies", s).risk(Refused)
		case int(f) == 0 && f > 0:
			m.root.set("safety.maxRemovals", 1, "from "+s.origin()+": under 1%, written as 1 user")
			m.rep.add(Differs, []string{"safety.maxRemovals"}, note+"; orgsync's percentages are whole: "+pct+"% is written as a count of 1", s)
		case f == 0:
			m.noneAllowed(s)
		default:
			if float64(int(f)) != f {
				note += fmt.Sprintf("; orgsync's percentages are whole: %s%% is written %d%%", pct, int(f))
			}
			m.root.set("safety.maxRemovals", strconv.Itoa(int(f))+"%", "from "+s.origin())
			m.rep.add(Differs, []string{"safety.maxRemovals"}, note, s)
		}
		return
	}
	n, err := strconv.Atoi(text)
	switch {
	case err != nil || n < 0:
		m.rep.add(NoEquivalent, nil, "not a count or a percentage (the incumbent refuses it): orgsync's default, 10%, applies", s).risk(Refused)
	case n == 0:
		m.noneAllowed(s)
	default:
		m.root.set("safety.maxRemovals", n, "from "+s.origin())
		m.rep.add(Differs, []string{"safety.maxRemovals"}, note, s)
	}
}

// groupRemovalsOnly translates limits.group_removals_only: with it the
// incumbent acts only on the users only in the organization who still have
// mapped groups, and counts only them against the limit.
func (m *migration) groupRemovalsOnly(g *setting) {
	on, _ := g.boolean()
	switch {
	case !on:
		m.rep.add(Translated, nil, "off: the incumbent's default; orgsync acts on every user only in the organization, as the incumbent then does", g)
	case m.inv.action == "" || m.inv.action == "exclude" || m.groupsOff() && (m.inv.action == "preserve" || m.inv.action == "write-file"):
		m.rep.add(NotUsed, nil, "the incumbent acts on no user only in the organization with these options", g)
	case m.inv.action == "remove" || m.inv.action == "delete" || m.inv.action == "remove-adobe-groups":
		m.rep.add(NoEquivalent, nil, "orgsync has no way to act only on the users only in the organization who still have managed groups: with "+m.inv.action+" it acts on all of them, where the incumbent leaves alone those without mapped groups; closest: policy.unmatchedUsers: remove-groups (which changes nothing for those without)", g).risk(AppliesMore)
	default:
		m.rep.add(Differs, nil, "the incumbent's action on users only in the organization changes nothing for those without mapped groups anyway; only its count against max_adobe_only_users differs (orgsync counts the users it takes groups away from)", g)
	}
}

// noneAllowed translates a limit of 0 users only in the organization: the
// incumbent never acts on them, which is orgsync's preserve.
func (m *migration) noneAllowed(s *setting) {
	m.root.set("policy.unmatchedUsers", "preserve", "from "+s.origin()+": 0, so the incumbent never acts on users only in the organization")
	m.root.set("safety.maxRemovals", "10%", "orgsync's default, written: with "+s.origin()+" at 0 the incumbent sets no limit on the groups it takes away from directory users (orgsync's maxRemovals: 0 would mean no limit either, and would drop this protection)")
	m.rep.add(Differs, []string{"policy.unmatchedUsers", "safety.maxRemovals"}, "a limit of 0 stops the incumbent from acting on any user only in the organization: orgsync's unmatchedUsers: preserve. The incumbent limits nothing else; orgsync's safety.maxRemovals, written as its default 10%, also holds for approval the managed groups taken away from directory users over that limit, which the incumbent applies", s)
}

// scope translates exclude_unmapped_users, adobe_only_user_list and
// adobe_users.
func (m *migration) scope() {
	if m.inv.opt("exclude_unmapped_users").on() {
		m.root.set("scope.excludeUnmappedUsers", true, "from "+m.inv.opt("exclude_unmapped_users").from())
		m.optionEntry("exclude_unmapped_users", Differs, []string{"scope.excludeUnmappedUsers"}, "a directory user mapped to no group is not created, as with the incumbent; one already in the organization is left alone by orgsync, where the incumbent takes its mapped groups away")
	} else {
		m.optionEntry("exclude_unmapped_users", Translated, nil, "off: orgsync's default")
	}
	if l := m.inv.opt("adobe_only_user_list"); l.first() != "" {
		m.root.set("scope.usersFile", m.pathFor(l.values[0]), "from "+l.from())
		m.optionEntry("adobe_only_user_list", Differs, []string{"scope.usersFile"}, "orgsync acts on the listed users only, as the incumbent; but it also reads the directory: a listed user still in a source is synced (given the groups the directory maps him to, his attributes updated), not removed (the incumbent reads no directory and applies adobe_only_user_action to every listed user). For a one-off run: orgsync sync --users-file FILE").risk(AppliesMore)
	}
	switch m.inv.adobeUsers {
	case "all":
		m.optionEntry("adobe_users", Translated, nil, "every user of the organization: orgsync's default")
	default:
		m.optionEntry("adobe_users", NoEquivalent, nil, fmt.Sprintf("orgsync reads the whole organization (the managed groups' members, or every user when it may remove some): users outside %s are not left out. Closest: exclude the users to leave alone (policy.exclude.groups with their groups)", m.adobeUsersGroups())).risk(AppliesMore)
	}
}

// testMode translates test_mode on: the incumbent applies nothing. orgsync
// has no configuration key that stops sync and the daemon from applying:
// the configuration is written with a warning at its top, and the
// difference must be accepted.
func (m *migration) testMode(tm *option) {
	m.head = append(m.head,
		"TEST MODE: the incumbent runs in test mode ("+tm.from()+"): it applies nothing.",
		"Use this configuration with orgsync plan (changes nothing) or orgsync sync --test-only (the service",
		"checks each request and changes nothing) only: orgsync sync and orgsync daemon APPLY its changes.")
	m.optionEntry("test_mode", Differs, nil, "the incumbent applies nothing in test mode; orgsync has no configuration key for it: orgsync sync and orgsync daemon apply the changes. migrate wrote a warning at the top of the configuration: run orgsync plan, or orgsync sync --test-only (the service checks each request and changes nothing), and schedule orgsync sync or the daemon only when the incumbent's runs would apply too").risk(AppliesMore)
}

// runOptions reports the options that choose how a run goes rather than
// what it does: test mode.
func (m *migration) runOptions() {
	tm := m.inv.opt("test_mode")
	if tm.on() {
		m.testMode(tm)
	} else {
		m.optionEntry("test_mode", Translated, nil, "off: orgsync sync applies the changes")
	}
	m.optionEntry("connector", Translated, []string{"sources[0]"}, "the source")
	if s := m.main.get("invocation_defaults"); s != nil {
		s.done = true
	}
	for _, o := range invocationOptions {
		if s := m.inv.opt(o.name).set; s != nil && !s.done {
			m.rep.add(Translated, nil, "empty: the incumbent's default applies, and orgsync does the same", s)
		}
	}
	if s := m.main.get("post_sync"); s != nil {
		m.rep.add(NoEquivalent, nil, "the incumbent no longer runs post_sync (it refuses the key); orgsync syncs the User Management Service only", tree(s)...).risk(Refused)
	}
}

// multiOrgExclusion translates exclude_adobe_groups with several
// organizations. The incumbent checks the groups in the primary only and,
// in a secondary organization, touches only the users of the primary it
// did not exclude there; orgsync checks each organization's own members of
// the groups, and touches users of a secondary who are not in the primary.
func (m *migration) multiOrgExclusion(s *setting, groups []string) {
	m.root.set("policy.exclude.groups", groups, "from "+s.origin()+" (checked in each organization: see the report)")
	m.rep.add(Differs, []string{"policy.exclude.groups"}, "the incumbent checks these groups in the primary organization only, and leaves alone, in every secondary organization, each user it excluded in the primary; orgsync checks the members of the same-named groups in each organization. With each secondary organization's own policy (unmatchedUsers: preserve) one case is left: a directory user who is a member of these groups in the primary (an administrator) but not in a secondary organization he belongs to has his managed groups there synced by orgsync, where the incumbent never touches him (a member of the groups in a secondary organization only is left alone by orgsync where the incumbent acts: orgsync does less). orgsync migrate --out FILE --check-target counts them on the live plan; add them to that organization's policy.exclude.usernames to leave them alone", s).risk(RemovesProtection)
}
