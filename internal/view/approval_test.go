package view

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/changecontrol"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/reconcile"
)

// TestApprovals: the pending approvals one a line, with what later runs
// dropped from them and why they were held; the heading of one being
// decided; a rejected one with what becomes of its changes.
func TestApprovals(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	Approvals(&b, nil, nil, nil)
	if b.String() != "no pending approvals\n" {
		t.Errorf("no approvals: %q", b.String())
	}
	at := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	remove := reconcile.Change{Kind: reconcile.KindRemove, User: ent("a@example.com", "A")}
	a := store.Approval{ID: "0123abcd", Org: "emea", Created: at, Reason: "3 removals exceed targets[1].safety.maxRemovals 1",
		Changes: []reconcile.Change{remove, remove}, Narrowed: []store.Narrowing{{Dropped: []reconcile.Change{remove}}},
		Decided: &store.Decider{By: "ann"}}
	b.Reset()
	Approvals(&b, []store.Approval{a}, map[string]changecontrol.Standing{a.ID: {Wanted: 1, Dropped: 1}}, nil)
	want := "0123abcd  2026-11-25T09:00:00Z  organization emea: 2 changes held, 1 change no longer asked for dropped since (when held: 3 removals exceed targets[1].safety.maxRemovals 1)\n" +
		"          now: 1 change the sources still ask for (orgsync approve 0123abcd applies them), 1 no longer\n"
	if b.String() != want {
		t.Errorf("Approvals =\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	Approvals(&b, []store.Approval{a}, nil, errors.New("sources[0]: unreadable"))
	if !strings.HasSuffix(b.String(), "(where they stand now is unknown: a fresh plan failed: sources[0]: unreadable)\n") {
		t.Errorf("Approvals without a fresh plan =\n%s", b.String())
	}
	b.Reset()
	Approving{W: &b}.Approval(&a)
	Approving{W: &b}.NotApplied()
	Rejected(&b, &a)
	for _, want := range []string{
		"approval 0123abcd, organization emea, held 2026-11-25T09:00:00Z: 3 removals exceed targets[1].safety.maxRemovals 1\n",
		"dry run: nothing applied; the approval stays pending\n",
		"approval 0123abcd rejected by ann: its 2 changes are discarded; those the sources still ask for are never sent on their own: the next sync holds them again, in a new approval",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("lacks %q:\n%s", want, b.String())
		}
	}
}
