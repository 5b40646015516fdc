package view

import (
	"fmt"
	"io"
	"time"

	"github.com/orgsync/orgsync/internal/changecontrol"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/util/plural"
)

// Approvals writes the pending approvals, one a line, each with the
// number of changes it holds (a later run may have narrowed it) and the
// limit's reason when it was held, then where it stands now, by a fresh
// plan (now, by id: what approving it applies now); unknown, when set,
// says why a fresh plan could not say it.
func Approvals(w io.Writer, pending []store.Approval, now map[string]changecontrol.Standing, unknown error) {
	if len(pending) == 0 {
		fmt.Fprintln(w, "no pending approvals")
	}
	for _, a := range pending {
		fmt.Fprintf(w, "%s  %s  organization %s: %s held%s (when held: %s)\n", a.ID, a.Created.Format(time.RFC3339), a.Org,
			plural.Of(len(a.Changes), "change", "changes"), narrowings(&a), a.Reason)
		if s, ok := now[a.ID]; ok {
			fmt.Fprintf(w, "          now: %s the sources still ask for (orgsync approve %s applies them), %d no longer\n",
				plural.Of(s.Wanted, "change", "changes"), a.ID, s.Dropped)
		}
	}
	if unknown != nil {
		fmt.Fprintf(w, "(where they stand now is unknown: a fresh plan failed: %v)\n", unknown)
	}
}

// narrowings says how many changes later runs took out of a, after a
// comma; empty when none.
func narrowings(a *store.Approval) string {
	n := 0
	for _, x := range a.Narrowed {
		n += len(x.Dropped)
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %s no longer asked for dropped since", plural.Of(n, "change", "changes"))
}

// Approving shows on W an approval being decided
// (changecontrol.Control.Approve's view).
type Approving struct{ W io.Writer }

// Approval writes the heading of approval a: its organization, when it
// was held and why.
func (v Approving) Approval(a *store.Approval) {
	fmt.Fprintf(v.W, "approval %s, organization %s, held %s: %s\n", a.ID, a.Org, a.Created.Format(time.RFC3339), a.Reason)
}

// Release writes what releasing the approval (g, from run.Job.Release)
// applies and what it leaves out, and reports whether it applies
// anything.
func (v Approving) Release(g *run.Gated) bool {
	d := g.Decision()
	for i := range d.Dropped {
		_, _ = io.WriteString(v.W, changeLine("no longer asked for by the sources, left out: ", &d.Dropped[i]))
	}
	changes := g.OrgPlan().Plan.Changes
	if len(changes) == 0 {
		fmt.Fprintln(v.W, "nothing left to apply: approving drops the approval")
		return false
	}
	fmt.Fprintf(v.W, "approving applies %s:\n", plural.Of(len(changes), "change", "changes"))
	for i := range changes {
		_, _ = io.WriteString(v.W, changeLine("  ", &changes[i]))
	}
	return true
}

// NotApplied writes that a dry run of the approval applied nothing.
func (v Approving) NotApplied() {
	fmt.Fprintln(v.W, "dry run: nothing applied; the approval stays pending")
}

// Rejected writes that approval a was rejected, by whom, and what becomes
// of its changes.
func Rejected(w io.Writer, a *store.Approval) {
	fmt.Fprintf(w, "approval %s rejected by %s: its %s discarded; those the sources still ask for are never sent on their own: the next sync holds them again, in a new approval\n",
		a.ID, a.Decided.By, plural.Of(len(a.Changes), "change is", "changes are"))
}
