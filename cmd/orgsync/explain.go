package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/mapping"
)

// writeExplains writes, for the user named by plan --explain, how each
// source's record of it gave each of its groups (which mapping rule,
// which expression), whether the run's scope leaves it alone, and the
// planned changes for it in each organization.
func (e *env) writeExplains(w io.Writer, plans []*planned) {
	p := plans[0] // the sources' side is the same for every organization
	name := e.explain
	fmt.Fprintf(w, "\nexplain %s:\n", name)
	if len(p.desired.traces) == 0 {
		fmt.Fprintf(w, "  no source has a record with this email or username\n")
	}
	for _, t := range p.desired.traces {
		e.writeTrace(w, &t, p.mapper)
	}
	known := false // a source has the user (in or out of the run)
	for _, u := range p.desired.users {
		if source.Explains(name, u.Email, u.Username) {
			known = true
			fmt.Fprintf(w, "  desired: %s with groups %s\n", u.Key(), listOrNone(u.Groups))
			if held := p.desired.held[u.Key()]; len(held) > 0 {
				fmt.Fprintf(w, "  held this run (a mapped group another source names is missing): %s\n", strings.Join(held, ", "))
			}
		}
	}
	for _, u := range p.scope.Out {
		if source.Explains(name, u.Email, u.Username) {
			known = true
			fmt.Fprintf(w, "  out of scope: the run leaves %s alone\n", u.Key())
		}
	}
	if !known && p.scope.KeepUnmatched {
		fmt.Fprintf(w, "  out of scope: the run is scoped to directory groups, and leaves alone the users no source gives\n")
	}
	if p.scope.Only != nil && !p.scope.Only[strings.ToLower(name)] {
		fmt.Fprintf(w, "  out of scope: the users file does not list %s\n", name)
	}
	for _, p := range plans {
		e.writePlanned(w, p)
	}
}

// writePlanned writes the changes p plans for the user plan --explain
// names, after the organization's name when there are several.
func (e *env) writePlanned(w io.Writer, p *planned) {
	name, prefix := e.explain, "  planned"
	if e.cfg.MultiOrg() {
		prefix += " in " + p.org.Name
	}
	if p.err != nil {
		fmt.Fprintf(w, "%s: none (the organization could not be planned)\n", prefix)
		return
	}
	if e.cfg.MultiOrg() && e.noGroupIn(p) {
		switch {
		case e.cfg.Scope.ExcludeUnmappedUsers:
			fmt.Fprintf(w, "  in %s: no group of %[1]s for this user: out of scope there (excludeUnmappedUsers), left alone\n", p.org.Name)
		case p.org.Members == config.MembersMapped:
			fmt.Fprintf(w, "  in %s: no group of %[1]s for this user (members: mapped): not added to it; a member already keeps the place, without the managed groups\n", p.org.Name)
		}
	}
	changes := 0
	for _, list := range [][]reconcile.Change{p.plan.Changes, p.plan.Withheld} {
		for i := range list {
			if source.Explains(name, list[i].User.Email, list[i].User.Username) {
				fmt.Fprintf(w, "%s: %s\n", prefix, list[i].String())
				changes++
			}
		}
	}
	unmatched := slices.ContainsFunc(p.plan.Unmatched, func(u reconcile.User) bool { return source.Explains(name, u.Email, u.Username) })
	switch {
	case unmatched:
		fmt.Fprintf(w, "%s: unmatched: in the organization and in no source, so policy.unmatchedUsers applies\n", prefix)
	case changes == 0 && len(p.desired.traces) == 0:
		fmt.Fprintf(w, "%s: no change: the organization's users read for this plan have no such user either; check the name\n", prefix)
		return
	}
	if changes == 0 {
		fmt.Fprintf(w, "%s: no change\n", prefix)
	}
}

// noGroupIn reports whether the sources have the user plan --explain
// names (in the run), with no group of organization p.org.
func (e *env) noGroupIn(p *planned) bool {
	known := false
	for _, u := range p.desired.users {
		if !source.Explains(e.explain, u.Email, u.Username) {
			continue
		}
		known = true
		for _, g := range slices.Concat(u.Groups, p.desired.held[u.Key()]) {
			if i, _, ok := e.cfg.TargetIndex(g); ok && &e.cfg.Targets[i] == p.org {
				return false
			}
		}
	}
	return known
}

// writeTrace writes how one source record was built.
func (e *env) writeTrace(w io.Writer, t *diag.Trace, m *mapping.Mapper) {
	where := t.File
	if t.Line > 0 {
		where = fmt.Sprintf("%s:%d", t.File, t.Line)
	}
	if t.Record != "" && t.Line == 0 {
		where += " " + t.Record
	}
	fmt.Fprintf(w, "  %s, %s:\n", t.Source, where)
	for _, g := range t.DirectoryGroups {
		hits := m.Explain(g)
		if len(hits) == 0 {
			fmt.Fprintf(w, "    directory group %q: no mapping rule\n", g)
		}
		for _, h := range hits {
			fmt.Fprintf(w, "    directory group %q: %s gives %s\n", g, e.ruleText(h.Rule), strings.Join(h.Targets, ", "))
		}
	}
	if len(t.ExprGroups) > 0 {
		fmt.Fprintf(w, "    groups expression gives %s\n", strings.Join(t.ExprGroups, ", "))
	}
	for _, f := range slices.Sorted(maps.Keys(t.Set)) {
		fmt.Fprintf(w, "    set.%s gives %q\n", f, t.Set[f])
	}
	switch t.LeftOut {
	case "filter":
		fmt.Fprintf(w, "    left out by the filter expression %s (false for this record): the run leaves this user alone\n", t.Filter)
	case "scope":
		fmt.Fprintf(w, "    left out: in none of the scope groups %q\n", e.cfg.Scope.Groups)
	}
	if t.Skipped != "" {
		fmt.Fprintf(w, "    skipped as a bad record: %s\n", t.Skipped)
	}
}

// ruleText names mapping rule i as the configuration writes it.
func (e *env) ruleText(i int) string {
	r := e.cfg.Mapping[i]
	if r.Pattern != "" {
		return fmt.Sprintf("mapping[%d] (pattern %q)", i, r.Pattern)
	}
	return fmt.Sprintf("mapping[%d] (directory %q)", i, r.Directory)
}

func listOrNone(groups []string) string {
	if len(groups) == 0 {
		return "(none)"
	}
	return strings.Join(groups, ", ")
}
