package approval

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/reconcile"
)

func user(email string) reconcile.User {
	return reconcile.User{Type: reconcile.EnterpriseID, Email: email}
}

func remove(email string) reconcile.Change {
	return reconcile.Change{Kind: reconcile.KindRemove, User: user(email)}
}

func drop(email string, groups ...string) reconcile.Change {
	return reconcile.Change{Kind: reconcile.KindUpdate, User: user(email), Remove: groups}
}

// parts lists a change set as kind/key/group lines, one a removed group.
func parts(changes []reconcile.Change) []string {
	var out []string
	for _, c := range changes {
		if c.Kind != reconcile.KindUpdate {
			out = append(out, string(c.Kind)+" "+c.Key())
		}
		for _, g := range c.Remove {
			out = append(out, "update "+c.Key()+" "+strings.ToLower(g))
		}
	}
	slices.Sort(out)
	return out
}

func TestNarrow(t *testing.T) {
	held := []reconcile.Change{remove("a@example.com"), remove("b@example.com"), drop("c@example.com", "Design", "Sales")}
	for _, tc := range []struct {
		name          string
		fresh         reconcile.Plan
		kept, dropped []string
	}{
		{"all still wanted (withheld again)", reconcile.Plan{Withheld: held}, parts(held), nil},
		{"b came back to a source, c keeps Sales",
			reconcile.Plan{Withheld: []reconcile.Change{remove("A@example.com"), drop("c@example.com", "design")}},
			[]string{"remove a@example.com", "update c@example.com design"},
			[]string{"remove b@example.com", "update c@example.com sales"}},
		{"wanted by the plan's own changes (limit raised)",
			reconcile.Plan{Changes: []reconcile.Change{{Kind: reconcile.KindUpdate, User: user("c@example.com"), Add: []string{"X"}, Remove: []string{"Sales"}}}},
			[]string{"update c@example.com sales"},
			[]string{"remove a@example.com", "remove b@example.com", "update c@example.com design"}},
		{"a removal is not a deletion",
			reconcile.Plan{Withheld: []reconcile.Change{{Kind: reconcile.KindDelete, User: user("a@example.com")}}},
			nil, parts(held)},
		{"nothing wanted", reconcile.Plan{}, nil, parts(held)},
	} {
		kept, dropped := Narrow(held, &tc.fresh)
		if got := parts(kept); !slices.Equal(got, tc.kept) {
			t.Errorf("%s: kept %v, want %v", tc.name, got, tc.kept)
		}
		if got := parts(dropped); !slices.Equal(got, tc.dropped) {
			t.Errorf("%s: dropped %v, want %v", tc.name, got, tc.dropped)
		}
	}
}

func TestUncovered(t *testing.T) {
	pending := [][]reconcile.Change{{remove("a@example.com"), drop("c@example.com", "Design")}}
	withheld := []reconcile.Change{remove("a@example.com"), remove("b@example.com"), drop("c@example.com", "design", "Sales")}
	got := parts(Uncovered(withheld, pending...))
	want := []string{"remove b@example.com", "update c@example.com sales"}
	if !slices.Equal(got, want) {
		t.Errorf("uncovered %v, want %v", got, want)
	}
	if got := Uncovered(withheld, withheld); len(got) != 0 {
		t.Errorf("what an approval holds is uncovered: %v", parts(got))
	}
}

// randomChanges draws destructive changes over a few users and groups.
func randomChanges(r *rand.Rand) []reconcile.Change {
	var out []reconcile.Change
	for range r.IntN(6) {
		email := fmt.Sprintf("u%d@example.com", r.IntN(4))
		switch r.IntN(3) {
		case 0:
			out = append(out, remove(email))
		case 1:
			out = append(out, reconcile.Change{Kind: reconcile.KindDelete, User: user(email)})
		default:
			var gs []string
			for _, g := range []string{"A", "b", "C"} {
				if r.IntN(2) == 0 {
					gs = append(gs, g)
				}
			}
			if len(gs) > 0 {
				out = append(out, drop(email, gs...))
			}
		}
	}
	return out
}

// TestNarrowPartitionsProperty: over random held changes and fresh plans,
// kept and dropped together are exactly what was held, kept is what the
// fresh plan wants, and nothing is in both.
func TestNarrowPartitionsProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		held, fresh := randomChanges(r), &reconcile.Plan{Withheld: randomChanges(r)}
		kept, dropped := Narrow(held, fresh)
		all := parts(append(slices.Clone(kept), dropped...))
		if want := parts(held); !slices.Equal(dedup(all), dedup(want)) {
			t.Fatalf("held %v: kept+dropped %v", want, all)
		}
		for _, p := range parts(kept) {
			if slices.Contains(parts(dropped), p) {
				t.Fatalf("%s both kept and dropped", p)
			}
			if !slices.Contains(parts(fresh.Withheld), p) {
				t.Fatalf("kept %s, which the fresh plan does not want", p)
			}
		}
		rest := Uncovered(fresh.Withheld, kept)
		if got := parts(append(rest, kept...)); !slices.Equal(dedup(got), dedup(parts(fresh.Withheld))) {
			t.Fatalf("uncovered %v and kept %v do not make up the fresh plan %v", parts(rest), parts(kept), parts(fresh.Withheld))
		}
	}
}

func dedup(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

func TestLimitTripped(t *testing.T) {
	limit := &reconcile.Plan{Safety: &reconcile.SafetyError{LimitName: "maxRemovals"}}
	sources := &reconcile.Plan{Safety: &reconcile.SafetyError{Reason: "the sources returned no user"}}
	if !LimitTripped(limit) || LimitTripped(sources) || LimitTripped(&reconcile.Plan{}) {
		t.Error("LimitTripped: want true only for a limit")
	}
	if SourcesIncomplete(limit) || !SourcesIncomplete(sources) {
		t.Error("SourcesIncomplete: want true only for the sources")
	}
}

// overLimit is a plan whose removals a limit withheld.
func overLimit(send []reconcile.Change, withheld ...reconcile.Change) *reconcile.Plan {
	return &reconcile.Plan{Changes: send, Withheld: withheld, Safety: &reconcile.SafetyError{
		Reason: "removals exceed safety.maxRemovals 1", Withheld: len(withheld), LimitName: reconcile.SettingMaxRemovals}}
}

func ids() func() string {
	n := 0
	return func() string { n++; return fmt.Sprintf("new%d", n) }
}

// TestDecideOnLimit: a tripped limit under stop holds back every change
// and says which setting stopped it; under hold, a real run with a state
// directory makes of what no pending approval holds yet a new approval and
// lets the rest through; a dry run, or one without a state directory,
// holds nothing and keeps the limit's error.
func TestDecideOnLimit(t *testing.T) {
	create := reconcile.Change{Kind: reconcile.KindCreate, User: user("n@example.com")}
	pending := []Held{{ID: "p1", Changes: []reconcile.Change{remove("a@example.com")}}}
	plan := func() *reconcile.Plan {
		return overLimit([]reconcile.Change{create}, remove("a@example.com"), remove("b@example.com"))
	}

	p := plan()
	d := Decide(Facts{Plan: p, Pending: pending, Safety: Safety{Stop: true, OnLimitBy: "targets[1].safety.onLimit"}, Real: true, Kept: true, NewID: ids()})
	if !d.Stopped || len(p.Changes) != 0 || len(p.Withheld) != 3 || !p.Safety.Stopped || d.Created != nil ||
		!strings.HasSuffix(p.Safety.Reason, "(targets[1].safety.onLimit: stop)") || d.Tripped != "removals exceed safety.maxRemovals 1" {
		t.Errorf("stop: %+v, plan %v withheld %v, safety %+v", d, parts(p.Changes), parts(p.Withheld), p.Safety)
	}

	p = plan()
	d = Decide(Facts{Plan: p, Pending: pending, Real: true, Kept: true, NewID: ids()})
	if d.Stopped || d.Created == nil || d.Created.ID != "new1" || !slices.Equal(parts(d.Created.Changes), []string{"remove b@example.com"}) ||
		p.Safety != nil || len(p.Changes) != 1 || len(d.Pending) != 2 || !slices.Equal(d.Holding, []Holding{{ID: "p1", Changes: 1}}) {
		t.Errorf("hold: %+v, plan %v, safety %v", d, parts(p.Changes), p.Safety)
	}

	for _, f := range []Facts{{Real: false, Kept: true}, {Real: true, Kept: false}} {
		p = plan()
		f.Plan, f.NewID = p, ids()
		if d = Decide(f); d.Created != nil || p.Safety == nil || d.Tripped == "" || len(p.Changes) != 1 {
			t.Errorf("hold, real %v, state directory %v: %+v, safety %v", f.Real, f.Kept, d, p.Safety)
		}
	}
}

// TestDecideAroundApprovals: a pending approval loses what the plan no
// longer wants (unless the sources were incomplete); what rejected
// approvals held and the sources still ask for is held again as a new
// approval by a real run, which takes them up, and only held back by a
// dry one; what an approval being applied holds is held back too.
func TestDecideAroundApprovals(t *testing.T) {
	pending := []Held{{ID: "p1", Changes: []reconcile.Change{remove("a@example.com"), remove("gone@example.com")}}}
	rejected := []Held{{ID: "r1", Changes: []reconcile.Change{remove("c@example.com")}}}
	applying := []Held{{ID: "x1", Changes: []reconcile.Change{remove("d@example.com")}}}
	plan := func() *reconcile.Plan {
		return &reconcile.Plan{Changes: []reconcile.Change{remove("a@example.com"), remove("c@example.com"), remove("d@example.com")}}
	}

	p := plan()
	d := Decide(Facts{Plan: p, Pending: pending, Rejected: rejected, Applying: applying, Real: true, Kept: true, NewID: ids()})
	if len(d.Narrowed) != 1 || d.Narrowed[0].ID != "p1" || !slices.Equal(parts(d.Narrowed[0].Dropped), []string{"remove gone@example.com"}) {
		t.Errorf("narrowed %+v", d.Narrowed)
	}
	if d.Again == nil || !slices.Equal(parts(d.Again.Changes), []string{"remove c@example.com"}) || !slices.Equal(d.TakenUp, []string{"r1"}) || d.RejectedHeld != 1 {
		t.Errorf("rejected: again %+v, taken up %v, held %d", d.Again, d.TakenUp, d.RejectedHeld)
	}
	if len(p.Changes) != 0 || len(d.Quarantined) != 3 || !slices.Equal(d.Holding, []Holding{{"p1", 1}, {"new1", 1}, {"x1", 1}}) || len(d.Pending) != 2 {
		t.Errorf("real: sends %v, quarantined %v, holding %v, pending %+v", parts(p.Changes), parts(d.Quarantined), d.Holding, d.Pending)
	}

	p = plan()
	d = Decide(Facts{Plan: p, Pending: pending, Rejected: rejected, NewID: ids()})
	if d.Again != nil || d.TakenUp != nil || d.RejectedHeld != 1 || len(p.Changes) != 1 || len(d.Pending) != 1 {
		t.Errorf("dry: %+v, sends %v", d, parts(p.Changes))
	}

	p = plan()
	p.Safety = &reconcile.SafetyError{Reason: "a source reported problems"}
	if d = Decide(Facts{Plan: p, Pending: pending, Real: true, Kept: true, NewID: ids()}); d.Narrowed != nil || len(d.Pending[0].Changes) != 2 {
		t.Errorf("incomplete sources narrowed the approval: %+v", d)
	}
}
