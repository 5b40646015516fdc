package run

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
)

// Explain writes, for the user named by Overrides.Explain (nothing when
// none), how each source's record of it gave each of its groups (which
// mapping rule, which expression), whether the run's scope leaves it
// alone, and the planned changes for it in each organization.
func (j *Job) Explain(w io.Writer, ps *Plans) {
	if j.explain == "" {
		return
	}
	name, d := j.explain, ps.Sources
	fmt.Fprintf(w, "\nexplain %s:\n", name)
	if len(d.Traces) == 0 {
		fmt.Fprintf(w, "  no source has a record with this email or username\n")
	}
	for _, t := range d.Traces {
		j.writeTrace(w, &t)
	}
	known := false // a source has the user (in or out of the run)
	for _, u := range d.Users.All() {
		if source.Explains(name, u.Email, u.Username) {
			known = true
			fmt.Fprintf(w, "  desired: %s with groups %s\n", u.Key(), listOrNone(u.Groups))
			if held := d.Held[u.Key()]; len(held) > 0 {
				fmt.Fprintf(w, "  held this run (a mapped group another source names is missing): %s\n", strings.Join(held, ", "))
			}
		}
	}
	for _, u := range ps.Scope.Out {
		if source.Explains(name, u.Email, u.Username) {
			known = true
			fmt.Fprintf(w, "  out of scope: the run leaves %s alone\n", u.Key())
		}
	}
	if !known && ps.Scope.KeepUnmatched {
		fmt.Fprintf(w, "  out of scope: the run is scoped to directory groups, and leaves alone the users no source gives\n")
	}
	if ps.Scope.Only != nil && !ps.Scope.Only[strings.ToLower(name)] {
		fmt.Fprintf(w, "  out of scope: the users file does not list %s\n", name)
	}
	for _, p := range ps.Orgs {
		j.writePlanned(w, p, d)
	}
}

// writePlanned writes the changes p plans for the user plan --explain
// names, after the organization's name when there are several.
func (j *Job) writePlanned(w io.Writer, p *OrgPlan, d *Sources) {
	name, prefix := j.explain, "  planned"
	if j.multiOrg {
		prefix += " in " + p.Org.Name
	}
	if p.Err != nil {
		fmt.Fprintf(w, "%s: none (the organization could not be planned)\n", prefix)
		return
	}
	if j.multiOrg && j.noGroupIn(p.Org, d) {
		switch {
		case j.scope.ExcludeUnmappedUsers:
			fmt.Fprintf(w, "  in %s: no group of %[1]s for this user: out of scope there (excludeUnmappedUsers), left alone\n", p.Org.Name)
		case p.Org.Members == config.MembersMapped:
			fmt.Fprintf(w, "  in %s: no group of %[1]s for this user (members: mapped): not added to it; a member already keeps the place, without the managed groups\n", p.Org.Name)
		}
	}
	changes := 0
	for _, list := range [][]reconcile.Change{p.Plan.Changes, p.Plan.Withheld} {
		for i := range list {
			if source.Explains(name, list[i].User.Email, list[i].User.Username) {
				fmt.Fprintf(w, "%s: %s\n", prefix, list[i].String())
				changes++
			}
		}
	}
	unmatched := false
	for _, u := range p.Plan.Unmatched.All() {
		unmatched = unmatched || source.Explains(name, u.Email, u.Username)
	}
	switch {
	case unmatched:
		fmt.Fprintf(w, "%s: unmatched: in the organization and in no source, so %s applies\n", prefix, p.Org.PolicyKey(reconcile.SettingUnmatched))
	case changes == 0 && len(d.Traces) == 0:
		fmt.Fprintf(w, "%s: no change: the organization's users read for this plan have no such user either; check the name\n", prefix)
		return
	}
	if changes == 0 {
		fmt.Fprintf(w, "%s: no change\n", prefix)
	}
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

// writeTrace writes how one source record was built.
func (j *Job) writeTrace(w io.Writer, t *diag.Trace) {
	where := t.File
	if t.Line > 0 {
		where = fmt.Sprintf("%s:%d", t.File, t.Line)
	}
	if t.Record != "" && t.Line == 0 {
		where += " " + t.Record
	}
	fmt.Fprintf(w, "  %s, %s:\n", t.Source, where)
	if len(t.DirectoryGroups)+len(t.ExprGroups)+len(t.Set) == 0 && t.LeftOut == "" && t.Skipped == "" {
		fmt.Fprintln(w, "    in no directory group: no mapping rule gives it a group")
	}
	for _, g := range t.DirectoryGroups {
		hits := j.mapper.Explain(g)
		if len(hits) == 0 {
			fmt.Fprintf(w, "    directory group %q: no mapping rule\n", g)
		}
		for _, h := range hits {
			fmt.Fprintf(w, "    directory group %q: %s gives %s\n", g, j.ruleText(h.Rule), strings.Join(h.Targets, ", "))
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
		fmt.Fprintf(w, "    left out: in none of the scope groups %q\n", j.scope.Groups)
	}
	if t.Skipped != "" {
		fmt.Fprintf(w, "    skipped as a bad record: %s\n", t.Skipped)
	}
}

// ruleText names mapping rule i as the configuration writes it.
func (j *Job) ruleText(i int) string {
	r := j.rules[i]
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
