// Package view is how orgsync shows plans, saved plans, run results,
// approvals, the history and the admin commands' users, invites and
// products: as text for people (plans terraform-like: "+ create",
// "~ update", "- remove"; tables) and as JSON. What it shows is data made
// elsewhere (reconcile's plans, the run's results, the state store's
// approvals and history, the service's objects); the commands, the demo
// and the daemon render it
// here, in one place. A plan names its policy's settings as the
// configuration writes them (reconcile.Plan.Names).
package view

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/util/plural"
	"github.com/orgsync/orgsync/reconcile"
)

// MaxUnmatchedShown is the most unmatched users Plan lists one a line;
// the others are counted.
const MaxUnmatchedShown = 20

// Plan writes the plan for people: one line per change, terraform-like
// ("+ create", "~ update", "- remove"), then withheld changes, notes, the
// unmatched users (at most MaxUnmatchedShown) and the excluded count, and a
// summary line. A plan holding a change of a kind this version does not
// know is not written (reconcile.Plan.Check).
func Plan(w io.Writer, p *reconcile.Plan) error {
	if err := p.Check(); err != nil {
		return err
	}
	b := bufio.NewWriter(w)
	for i := range p.Changes {
		b.WriteString(changeLine("", &p.Changes[i]))
	}
	for i := range p.InviteGroups {
		b.WriteString(changeLine("", &p.InviteGroups[i]))
	}
	if len(p.InviteGroups) > 0 {
		b.WriteString("# note: the groups of pending invites (=) are sent again on every sync: the service does not show the groups kept with an invite; sending them again changes nothing that is there already\n")
	}
	for i := range p.Withheld {
		b.WriteString(changeLine("! withheld ", &p.Withheld[i]))
	}
	if p.Safety != nil {
		fmt.Fprintf(b, "! %s\n", p.Safety.Error())
	}
	for _, g := range p.MissingGroups {
		fmt.Fprintf(b, "! %s\n", g.Describe(p.Names))
	}
	for _, n := range p.Notes {
		fmt.Fprintf(b, "# note: %s\n", n)
	}
	unmatched(b, p)
	fmt.Fprintf(b, "Plan: %s\n", countsLine(p.Counts()))
	return b.Flush()
}

// unmatched writes the unmatched users, at most MaxUnmatchedShown of
// them, and the number of excluded users.
func unmatched(b *bufio.Writer, p *reconcile.Plan) {
	if n := p.Unmatched.Len(); n > 0 {
		fmt.Fprintf(b, "# %s (in the organization, in no source; %s says what happens to them):\n",
			plural.Of(n, "unmatched user", "unmatched users"), p.Names.Of(reconcile.SettingUnmatched))
		for i := range min(n, MaxUnmatchedShown) {
			u := p.Unmatched.At(i)
			fmt.Fprintf(b, "#   %s (%s)\n", u.Key(), u.Type)
		}
		if n > MaxUnmatchedShown {
			fmt.Fprintf(b, "#   ... and %d more (see --output json or %s)\n", n-MaxUnmatchedShown, p.Names.Of(config.SettingReportFile))
		}
	}
	if p.Excluded > 0 {
		fmt.Fprintf(b, "# %s (left alone by %s)\n", plural.Of(p.Excluded, "excluded user", "excluded users"), p.Names.Of(reconcile.SettingExclude))
	}
}

// countsLine is the one-line summary of the counts: the count of every
// kind of change, in the order of its place (KindInfo.Line), with the
// memberships' at theirs; the withheld, unmatched, excluded and out of
// scope users; then the kinds apart, those there are.
func countsLine(c reconcile.Counts) string {
	infos := make([]reconcile.KindInfo, 0, len(reconcile.Kinds()))
	for _, k := range reconcile.Kinds() {
		infos = append(infos, k.Info())
	}
	slices.SortStableFunc(infos, func(a, b reconcile.KindInfo) int { return cmp.Compare(a.Line, b.Line) })
	var changes, apart []string
	memberships := fmt.Sprintf("+%d/-%d memberships", c.AddMemberships, c.RemoveMemberships)
	for _, in := range infos {
		n := c.Of(in.Kind)
		switch {
		case in.Apart:
			if n > 0 {
				apart = append(apart, fmt.Sprintf("; %d %s", n, in.Words))
			}
			continue
		case in.Line > reconcile.MembershipsLine && memberships != "":
			changes, memberships = append(changes, memberships), ""
		}
		changes = append(changes, fmt.Sprintf("%d %s", n, in.Words))
	}
	if memberships != "" {
		changes = append(changes, memberships)
	}
	s := fmt.Sprintf("%s; %d withheld, %d unmatched, %d excluded", strings.Join(changes, ", "), c.Withheld, c.Unmatched, c.Excluded)
	if c.OutOfScope > 0 {
		s += fmt.Sprintf(", %d out of scope", c.OutOfScope)
	}
	return s + strings.Join(apart, "")
}

// PlanFormatVersion is the version of the JSON plan's format (PlanJSON,
// planJSON; docs/commands.md lists its fields): a field added keeps it,
// a field whose meaning changes, or that goes, takes a new one. Version
// 2 calls the users in the organization and in no source
// "unmatched" (the plan's list and its count), as the configuration and
// the plan's text do; version 1 called them "unlisted".
const PlanFormatVersion = 2

// PlanJSON writes the plan as one JSON object: formatVersion, counts,
// changes, withheld, safety, unmatched, excluded, notes, userGroups,
// missingGroups, and read (how the organization was read, when read is
// not nil: with incremental runs on). A plan that fails
// reconcile.Plan.Check is not written.
func PlanJSON(w io.Writer, p *reconcile.Plan, read *run.Reading) error {
	if err := p.Check(); err != nil {
		return err
	}
	return indentedJSON(w, newPlanJSON(p, read))
}
