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
