package run

import (
	"slices"
	"strings"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/diag"
)

// Explanation is what the run knows of the user Overrides.Explain names
// (plan --explain): how each source's record of it gave each of its groups
// (which mapping rule, which expression), whether the run's scope leaves
// it alone, and the changes planned for it in each organization. The
// views write it (view.Explain).
type Explanation struct {
	Name    string          // the user, by email or username, as named
	Records []ExplainRecord // the sources' records of the user
	Desired []ExplainUser   // the user as the sources give it, in the run
	// OutOfScope are the keys of the user's records the run's scope
	// leaves alone.
	OutOfScope []string
	// ScopedToGroups is set when no source has the user and the run is
	// scoped to directory groups: it leaves alone the users no source
	// gives.
	ScopedToGroups bool
	// NotListed is set when the run is scoped to a users file that does
	// not list the user.
	NotListed bool
	Orgs      []ExplainOrg
}

// ExplainRecord is one source record of the user, and how it was mapped.
type ExplainRecord struct {
	diag.Trace
	// Rules are, for each of Trace.DirectoryGroups, the mapping rules
	// that map it.
	Rules [][]ExplainRule
	// ScopeGroups are the run's scope groups, which a record left out
	// by the scope (Trace.LeftOut "scope") is in none of.
	ScopeGroups []string
}

// ExplainRule is one mapping rule that maps a directory group: its index
// in the configuration's mapping list, its directory group or pattern,
// and the targets it gives.
type ExplainRule struct {
	Index              int
	Directory, Pattern string
	Targets            []string
}

// ExplainUser is the user as the sources give it: its key, its groups, and
// the groups held this run because another source's mapped group is
// missing.
type ExplainUser struct {
	Key          string
	Groups, Held []string
}

// ExplainOrg is what one organization's plan does with the user.
type ExplainOrg struct {
	// Org names the organization when the configuration has several, ""
	// when it has one.
	Org string
	// Failed is set when the organization could not be planned.
	Failed bool
	// NoGroup says, in a configuration of several organizations, what
	// happens to the user given no group of Org.
	NoGroup NoGroup
	// Changes are the changes planned for the user, withheld ones
	// included.
	Changes []reconcile.Change
	// Unmatched names, when the user is in the organization and in no
	// source, the setting that says what happens to it.
	Unmatched string
	// Unknown is set when neither a source nor the organization's users
	// read for the plan have the user.
	Unknown bool
}

// NoGroup is what happens in an organization to a user of the sources
// given none of its groups; 0 when a group is given (or no source has
// the user).
type NoGroup int

const (
	NoGroupOut   NoGroup = iota + 1 // out of scope there (excludeUnmappedUsers), left alone
	NoGroupAdded                    // members: mapped: not added; a member keeps the place
)

// Explain returns what the run knows of the user Overrides.Explain names,
// nil when it names none.
func (j *Job) Explain(ps *Plans) *Explanation {
	if j.explain == "" {
		return nil
	}
	name, d := j.explain, ps.Sources
	x := &Explanation{Name: name}
	for _, t := range d.Traces {
		x.Records = append(x.Records, j.explainRecord(t))
	}
	known := false // a source has the user (in or out of the run)
	for _, u := range d.Users.All() {
		if source.Explains(name, u.Email, u.Username) {
			known = true
			x.Desired = append(x.Desired, ExplainUser{Key: u.Key(), Groups: u.Groups, Held: d.Held[u.Key()]})
		}
	}
	for _, u := range ps.Scope.Out {
		if source.Explains(name, u.Email, u.Username) {
			known = true
			x.OutOfScope = append(x.OutOfScope, u.Key())
		}
	}
	x.ScopedToGroups = !known && ps.Scope.KeepUnmatched
	x.NotListed = ps.Scope.Only != nil && !ps.Scope.Only[strings.ToLower(name)]
	for _, p := range ps.Orgs {
		x.Orgs = append(x.Orgs, j.explainOrg(p, d))
	}
	return x
}

// explainOrg is what plan p does with the user plan --explain names.
func (j *Job) explainOrg(p *OrgPlan, d *Sources) ExplainOrg {
	var o ExplainOrg
	if j.multiOrg {
		o.Org = p.Org.Name
	}
	if p.Err != nil {
		o.Failed = true
		return o
	}
	if j.multiOrg && j.noGroupIn(p.Org, d) {
		switch {
		case j.scope.ExcludeUnmappedUsers:
			o.NoGroup = NoGroupOut
		case p.Org.Members == config.MembersMapped:
			o.NoGroup = NoGroupAdded
		}
	}
	for _, list := range [][]reconcile.Change{p.Plan.Changes, p.Plan.Withheld} {
		for _, c := range list {
			if source.Explains(j.explain, c.User.Email, c.User.Username) {
				o.Changes = append(o.Changes, c)
			}
		}
	}
	if slices.ContainsFunc(p.Plan.Unmatched.List(), func(u reconcile.User) bool { return source.Explains(j.explain, u.Email, u.Username) }) {
		o.Unmatched = p.Org.PolicyKey(reconcile.SettingUnmatched)
	}
	o.Unknown = o.Unmatched == "" && len(o.Changes) == 0 && len(d.Traces) == 0
	return o
}

// noGroupIn reports whether the sources have the user plan --explain
// names (in the run), with no group of organization t.
func (j *Job) noGroupIn(t *config.NamedTarget, d *Sources) bool {
	known := false
	for _, u := range d.Users.All() {
		if !source.Explains(j.explain, u.Email, u.Username) {
			continue
		}
		known = true
		for _, g := range slices.Concat(u.Groups, d.Held[u.Key()]) {
			if i, _, ok := j.route(g); ok && j.targets[i] == t.Name {
				return false
			}
		}
	}
	return known
}

// explainRecord is how one source record was mapped.
func (j *Job) explainRecord(t diag.Trace) ExplainRecord {
	r := ExplainRecord{Trace: t, ScopeGroups: j.scope.Groups}
	for _, g := range t.DirectoryGroups {
		var rules []ExplainRule
		for _, h := range j.mapper.Explain(g) {
			m := j.rules[h.Rule]
			rules = append(rules, ExplainRule{Index: h.Rule, Directory: m.Directory, Pattern: m.Pattern, Targets: h.Targets})
		}
		r.Rules = append(r.Rules, rules)
	}
	return r
}
