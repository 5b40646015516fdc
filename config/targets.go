package config

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
)

// DefaultTargetName names the organization of a configuration that has a
// single target: key instead of a targets: list.
const DefaultTargetName = "default"

// GroupSeparator qualifies a target group with an organization's name in
// the mapping and the policy: "emea::Design" is the group Design of the
// organization named emea. An unqualified name belongs to the primary
// organization (the first of targets:, or the single target:).
const GroupSeparator = "::"

// Members values: who of the source users goes into an organization.
const (
	// MembersMapped: the users mapped to at least one of the
	// organization's groups (the default of every organization but the
	// primary).
	MembersMapped = "mapped"
	// MembersAll: every source user (the primary's default).
	MembersAll = "all"
)

// NamedTarget is one organization of the targets: list: a name for the
// mapping (name::Group), the target's keys, who goes into it, and its own
// policy and safety limits when they differ from the top-level ones.
type NamedTarget struct {
	// Name names the organization in the mapping, the plan, the logs and
	// the metrics. Required.
	Name   string `yaml:"name"`
	Target `yaml:",inline"`
	// Members is mapped or all; default all for the primary (the first
	// target), mapped for the others.
	Members string `yaml:"members"`
	// Policy, when set, replaces the top-level policy for this
	// organization; its group names are this organization's own.
	Policy *Policy `yaml:"policy"`
	// Safety, when set, replaces the top-level safety limits.
	Safety *Safety `yaml:"safety"`

	// path is where the target is in the file: "target" or "targets[i]".
	path string
}

// Path returns where the target is in the configuration file: "target"
// for a single target, else "targets[i]".
func (t *NamedTarget) Path() string { return t.path }

// Primary returns the primary organization: the first target.
func (c *Config) Primary() *NamedTarget { return &c.Targets[0] }

// TargetNames are the organizations' names (targets[].name), in the
// file's order.
func (c *Config) TargetNames() []string {
	names := make([]string, len(c.Targets))
	for i := range c.Targets {
		names[i] = c.Targets[i].Name
	}
	return names
}

// MultiOrg reports whether the file uses the targets: list (the plan and
// its JSON are then grouped by organization).
func (c *Config) MultiOrg() bool { return c.multi }

// SplitGroup splits "org::Group" into its organization name and group; an
// unqualified name returns an empty organization.
func SplitGroup(name string) (org, group string) {
	if o, g, ok := strings.Cut(name, GroupSeparator); ok {
		return o, g
	}
	return "", name
}

// TargetIndex returns the index in Targets of the organization a target
// group names ("org::Group", or the primary when unqualified) and the group
// without its qualifier; ok is false for an unknown organization.
func (c *Config) TargetIndex(name string) (i int, group string, ok bool) {
	org, group := SplitGroup(name)
	if org == "" {
		return 0, group, true
	}
	for i := range c.Targets {
		if c.Targets[i].Name == org {
			return i, group, true
		}
	}
	return 0, group, false
}

// normalizeTargets turns a single target: into the one-element targets
// list named default, and records each target's path. It reports a file
// that has both or neither.
func (c *Config) normalizeTargets(v *validation) {
	single, multi := v.w.has("target"), v.w.has("targets")
	switch {
	case single && multi:
		v.errorf("targets", "set target (one organization) or targets (a list of named organizations), not both")
	case multi && len(c.Targets) == 0:
		v.errorf("targets", "list at least one organization")
	case !single && !multi:
		v.errorf("target", "required: the organization to sync (target:, or targets: a list of named organizations)")
	}
	if len(c.Targets) == 0 {
		c.Targets = []NamedTarget{{Name: DefaultTargetName, Target: c.Target, Members: MembersAll, path: "target"}}
		return
	}
	c.multi = true
	for i := range c.Targets {
		c.Targets[i].path = index("targets", i)
	}
}

// targetNamePattern is what an organization's name may hold.
var targetNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// validateTargets checks each target, its name and members, and that no
// two share a name or an organization id.
func (c *Config) validateTargets(v *validation) {
	names, orgs, clients := map[string]string{}, map[string]string{}, map[string]string{}
	for i := range c.Targets {
		t := &c.Targets[i]
		if c.multi || v.w.has("target") { // else "target: required" says it all
			t.Target.validate(v, t.path)
		}
		if !c.multi {
			continue
		}
		switch {
		case t.Name == "":
			v.errorf(join(t.path, "name"), "required: a name for the organization, used in the mapping as name::Group")
		case !targetNamePattern.MatchString(t.Name):
			v.errorf(join(t.path, "name"), "%q: use letters, digits, '.', '_' and '-' only", t.Name)
		case names[t.Name] != "":
			v.errorf(join(t.path, "name"), "%q is already the name of %s", t.Name, names[t.Name])
		default:
			names[t.Name] = t.path
		}
		if prev := orgs[strings.ToLower(t.OrgID)]; prev != "" && t.OrgID != "" {
			v.errorf(join(t.path, "orgId"), "%s is already the organization of %s: sync each organization once", t.OrgID, prev)
		} else {
			orgs[strings.ToLower(t.OrgID)] = t.path
		}
		oneOf(v, join(t.path, "members"), t.Members, memberChoices)
		if prev := clients[t.Auth.ClientID]; prev != "" {
			v.warnf(join(t.path, "auth.clientId"), "the same integration as %s: the service's limits are per integration, so the two organizations, synced side by side, share them and may be answered 429; give each organization its own", prev)
		} else if t.Auth.ClientID != "" {
			clients[t.Auth.ClientID] = t.path
		}
	}
}

// validateQualifiedGroups checks that every organization a group name
// names (mapping targets, policy group lists) is one of the targets, and
// that every organization but the primary gets a group or has a policy.
func (c *Config) validateQualifiedGroups(v *validation) {
	mapped := map[string]bool{}
	for i, r := range c.Mapping {
		for j, g := range r.Targets {
			org, _ := SplitGroup(g)
			mapped[org] = true
			c.checkQualified(v, index(join(index("mapping", i), "targets"), j), g)
		}
	}
	for _, l := range c.Policy.groupLists() {
		for j, g := range l.names {
			org, _ := SplitGroup(g)
			mapped[org] = mapped[org] || l.maps
			c.checkQualified(v, index(join("policy", l.key), j), g)
		}
	}
	for i := range c.Targets {
		c.checkOwnPolicyGroups(v, &c.Targets[i])
	}
	for i := range c.Targets[1:] {
		t := &c.Targets[i+1]
		if !mapped[t.Name] && t.Policy == nil && t.Name != "" && c.firstNamed(t.Name) == t {
			v.errorf(t.path, "organization %q gets no group: name one in a mapping rule's targets (%q) or give it a policy of its own", t.Name, t.Name+GroupSeparator+"Group")
		}
	}
}

// checkOwnPolicyGroups reports group names of t's own policy that name
// another organization: an own policy names its own groups.
func (c *Config) checkOwnPolicyGroups(v *validation, t *NamedTarget) {
	if t.Policy == nil {
		return
	}
	at := join(t.path, "policy")
	for _, l := range t.Policy.groupLists() {
		for j, g := range l.names {
			if org, name := SplitGroup(g); org != "" && org != t.Name {
				v.errorf(index(join(at, l.key), j), "%q names organization %q: the policy of %s names its own groups (%q)", g, org, t.Name, name)
			}
		}
	}
}

// groupList is one of a policy's lists of group names.
type groupList struct {
	key   string // under policy
	names []string
	maps  bool // names groups the organization gets (not exclusions)
}

// groupLists returns the policy's lists of group names.
func (p *Policy) groupLists() []groupList {
	return []groupList{
		{"managedGroups", p.ManagedGroups, true},
		{"userGroups", p.UserGroups, true},
		{"exclude.groups", p.Exclude.Groups, false},
	}
}

// checkQualified reports a group name at path written org::Group whose
// organization is no target or whose parts are empty.
func (c *Config) checkQualified(v *validation, path, name string) {
	org, group := SplitGroup(name)
	switch {
	case org == "" && group != name:
		v.errorf(path, "%q: write org::Group with an organization's name before ::, or the group alone for the primary", name)
		return
	case org == "":
		return
	case strings.TrimSpace(group) == "":
		v.errorf(path, "%q names no group after ::", name)
		return
	}
	if c.firstNamed(org) != nil {
		return
	}
	var known []string // the names given, each once
	for i := range c.Targets {
		if t := &c.Targets[i]; t.Name != "" && c.firstNamed(t.Name) == t {
			known = append(known, t.Name)
		}
	}
	v.errorf(path, "unknown organization %q: the targets are %s (an unqualified group belongs to %s)",
		org, strings.Join(known, ", "), cmp.Or(c.Targets[0].Name, "targets[0]"))
}

// firstNamed returns the first target named name, or nil.
func (c *Config) firstNamed(name string) *NamedTarget {
	for i := range c.Targets {
		if c.Targets[i].Name == name {
			return &c.Targets[i]
		}
	}
	return nil
}

// targetDefaults applies the defaults of a target's own policy and safety.
// maxRemovals keeps the default 10% unless the file sets it.
func (c *Config) targetDefaults(w *walker) {
	for i := range c.Targets {
		t := &c.Targets[i]
		if t.Members == "" {
			t.Members = MembersMapped
			if i == 0 {
				t.Members = MembersAll
			}
		}
		if t.Policy != nil {
			t.Policy.applyDefaults()
		}
		if t.Safety != nil && !w.has(join(t.path, "safety.maxRemovals")) {
			t.Safety.MaxRemovals = Limit{N: DefaultMaxRemovalsPercent, Percent: true}
		}
	}
}

// TargetsNamed returns the organizations names names (all when none, or
// when it names none the configuration has): the organizations a run of
// --orgs names acts on.
func (c *Config) TargetsNamed(names []string) []*NamedTarget {
	var out []*NamedTarget
	for i := range c.Targets {
		if t := &c.Targets[i]; len(names) == 0 || slices.Contains(names, t.Name) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		for i := range c.Targets {
			out = append(out, &c.Targets[i])
		}
	}
	return out
}
