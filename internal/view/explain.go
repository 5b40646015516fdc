package view

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/util/oneline"
)

// Explain writes what plan --explain says of a user (run.Explanation):
// each source record of it with how its groups were given, the user as
// the sources give it or why the run leaves it alone, then what each
// organization's plan does with it. A nil x writes nothing.
func Explain(w io.Writer, x *run.Explanation) {
	if x == nil {
		return
	}
	fmt.Fprintf(w, "\nexplain %s:\n", x.Name)
	if len(x.Records) == 0 {
		fmt.Fprintf(w, "  no source has a record with this email or username\n")
	}
	for i := range x.Records {
		explainRecord(w, &x.Records[i])
	}
	for _, u := range x.Desired {
		fmt.Fprintf(w, "  desired: %s with groups %s\n", u.Key, listOrNone(u.Groups))
		if len(u.Held) > 0 {
			fmt.Fprintf(w, "  held this run (a mapped group another source names is missing): %s\n", strings.Join(u.Held, ", "))
		}
	}
	for _, k := range x.OutOfScope {
		fmt.Fprintf(w, "  out of scope: the run leaves %s alone\n", k)
	}
	if x.ScopedToGroups {
		fmt.Fprintf(w, "  out of scope: the run is scoped to directory groups, and leaves alone the users no source gives\n")
	}
	if x.NotListed {
		fmt.Fprintf(w, "  out of scope: the users file does not list %s\n", x.Name)
	}
	for _, o := range x.Orgs {
		explainOrg(w, o)
	}
}

// explainOrg writes what one organization's plan does with the user,
// after the organization's name when there are several.
func explainOrg(w io.Writer, o run.ExplainOrg) {
	prefix := "  planned"
	if o.Org != "" {
		prefix += " in " + o.Org
	}
	if o.Failed {
		fmt.Fprintf(w, "%s: none (the organization could not be planned)\n", prefix)
		return
	}
	switch o.NoGroup {
	case run.NoGroupOut:
		fmt.Fprintf(w, "  in %s: no group of %[1]s for this user: out of scope there (excludeUnmappedUsers), left alone\n", o.Org)
	case run.NoGroupAdded:
		fmt.Fprintf(w, "  in %s: no group of %[1]s for this user (members: mapped): not added to it; a member already keeps the place, without the managed groups\n", o.Org)
	}
	for i := range o.Changes {
		fmt.Fprintf(w, "%s: %s\n", prefix, oneline.Change(&o.Changes[i]))
	}
	switch {
	case o.Unmatched != "":
		fmt.Fprintf(w, "%s: unmatched: in the organization and in no source, so %s applies\n", prefix, o.Unmatched)
	case o.Unknown:
		fmt.Fprintf(w, "%s: no change: the organization's users read for this plan have no such user either; check the name\n", prefix)
		return
	}
	if len(o.Changes) == 0 {
		fmt.Fprintf(w, "%s: no change\n", prefix)
	}
}

// explainRecord writes how one source record was built.
func explainRecord(w io.Writer, r *run.ExplainRecord) {
	t := &r.Trace
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
	for i, g := range t.DirectoryGroups {
		if len(r.Rules[i]) == 0 {
			fmt.Fprintf(w, "    directory group %q: no mapping rule\n", g)
		}
		for _, rule := range r.Rules[i] {
			fmt.Fprintf(w, "    directory group %q: %s gives %s\n", g, ruleText(rule), strings.Join(rule.Targets, ", "))
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
		fmt.Fprintf(w, "    left out: in none of the scope groups %q\n", r.ScopeGroups)
	}
	if t.Skipped != "" {
		fmt.Fprintf(w, "    skipped as a bad record: %s\n", t.Skipped)
	}
}

// ruleText names a mapping rule as the configuration writes it.
func ruleText(r run.ExplainRule) string {
	if r.Pattern != "" {
		return fmt.Sprintf("mapping[%d] (pattern %q)", r.Index, r.Pattern)
	}
	return fmt.Sprintf("mapping[%d] (directory %q)", r.Index, r.Directory)
}

func listOrNone(groups []string) string {
	if len(groups) == 0 {
		return "(none)"
	}
	return strings.Join(groups, ", ")
}
