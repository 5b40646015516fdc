package run

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/run/approval"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/reconcile"
)

// memApprovals is the gate's store of approvals in memory, as state.dir
// keeps them: what is written is read back. noDir is a configuration
// without a state directory; fail, when set, fails every read and write.
type memApprovals struct {
	noDir  bool
	fail   error
	byID   map[string]store.Approval
	writes []string // the ids written, in order
}

func newMem(approvals ...store.Approval) *memApprovals {
	m := &memApprovals{byID: map[string]store.Approval{}}
	for _, a := range approvals {
		m.byID[a.ID] = a
	}
	return m
}

func (m *memApprovals) kept() bool { return !m.noDir }

func (m *memApprovals) recover(string) ([]store.Recovery, error) { return nil, m.fail }

func (m *memApprovals) approvals(org string, _ bool) (pending, applying, rejected []store.Approval, err error) {
	if m.fail != nil {
		return nil, nil, nil, m.fail
	}
	for _, id := range slices.Sorted(maps.Keys(m.byID)) {
		switch a := m.byID[id]; {
		case a.Org != org:
		case a.Status == store.Pending:
			pending = append(pending, a)
		case a.Status == store.Rejected && a.TakenUp == "":
			rejected = append(rejected, a)
		}
	}
	return pending, nil, rejected, nil
}

func (m *memApprovals) narrowed(a *store.Approval, _ string, narrow func(*store.Approval) bool) error {
	narrow(a)
	return m.save(a)
}

func (m *memApprovals) save(a *store.Approval) error {
	if m.fail != nil {
		return m.fail
	}
	m.byID[a.ID] = *a
	m.writes = append(m.writes, a.ID)
	return nil
}

func (m *memApprovals) approval(id string) (*store.Approval, error) {
	a, ok := m.byID[id]
	if !ok {
		return nil, fmt.Errorf("approval %s: %w", id, store.ErrNoApproval)
	}
	return &a, nil
}

func (m *memApprovals) claim(id string, _ store.Claimant) (*store.Approval, *store.Applying, error) {
	return nil, nil, fmt.Errorf("approval %s is claimed by another orgsync", id)
}

func removal(email string) reconcile.Change {
	return reconcile.Change{Kind: reconcile.KindRemove, User: user(email)}
}

func creation(email string) reconcile.Change {
	return reconcile.Change{Kind: reconcile.KindCreate, User: user(email)}
}

// overLimit is a plan whose removals a limit withheld.
func overLimit(send []reconcile.Change, withheld ...reconcile.Change) *reconcile.Plan {
	return &reconcile.Plan{Changes: send, Withheld: withheld, Safety: &reconcile.SafetyError{
		Reason: fmt.Sprintf("%d removals exceed safety.maxRemovals 1", len(withheld)), Withheld: len(withheld), LimitName: reconcile.SettingMaxRemovals}}
}

func pendingOf(id, status string, changes ...reconcile.Change) store.Approval {
	return store.Approval{ID: id, Org: "main", Status: status, Changes: changes}
}

// gateWith is the gate of organization main with s over q.
func gateWith(q approvals, s approval.Safety) *gate {
	return &gate{byOrg: map[string]approval.Safety{"main": s}, quarantine: q}
}

// decideOn gates plan, organization main's, in mode.
func decideOn(gt *gate, plan *reconcile.Plan, mode Mode) *Gated {
	return gt.gated(&OrgPlan{Org: &config.NamedTarget{Name: "main"}, Plan: plan, Run: "run1"}, mode, zap.NewNop())
}

// keys are the keys of changes, in order.
func keys(changes []reconcile.Change) string {
	out := make([]string, len(changes))
	for i := range changes {
		out[i] = changes[i].Key()
	}
	return strings.Join(out, ",")
}

// TestGateOnLimit: over a limit, hold keeps what the limit withheld as a
// new pending approval in a real run and lets the rest through (a dry
// run writes nothing); stop sends nothing and names the organization's
// onLimit setting; without a state directory nothing is held and the
// plan keeps its safety error (the run fails).
func TestGateOnLimit(t *testing.T) {
	t.Parallel()
	plan := func() *reconcile.Plan {
		return overLimit([]reconcile.Change{creation("a@x")}, removal("b@x"), removal("c@x"))
	}

	q := newMem()
	g := decideOn(gateWith(q, approval.Safety{}), plan(), Real)
	d, p := g.Decision(), g.OrgPlan()
	if d.Created == nil || keys(d.Created.Changes) != "b@x,c@x" || q.byID[d.Created.ID].Status != store.Pending || len(d.Pending) != 1 {
		t.Fatalf("hold: created %+v, store %v, pending %d", d.Created, q.writes, len(d.Pending))
	}
	if p.Err != nil || p.Plan.Safety != nil || keys(p.Plan.Changes) != "a@x" || d.Tripped == "" {
		t.Errorf("hold lets the rest through: %v, safety %v, changes %s, tripped %q", p.Err, p.Plan.Safety, keys(p.Plan.Changes), d.Tripped)
	}

	q = newMem()
	if g = decideOn(gateWith(q, approval.Safety{}), plan(), Dry); len(q.writes) != 0 || g.Decision().Created != nil || g.OrgPlan().Plan.Safety == nil {
		t.Errorf("a dry hold wrote %v, created %+v", q.writes, g.Decision().Created)
	}

	g = decideOn(gateWith(q, approval.Safety{Stop: true, OnLimitBy: "targets[0].safety.onLimit"}), plan(), Real)
	p = g.OrgPlan()
	if len(p.Plan.Changes) != 0 || keys(p.Plan.Withheld) != "b@x,c@x,a@x" || !g.Decision().Stopped || !p.Plan.Safety.Stopped ||
		!strings.HasSuffix(p.Plan.Safety.Reason, "(targets[0].safety.onLimit: stop)") || len(q.writes) != 0 {
		t.Errorf("stop: changes %s, withheld %s, safety %+v, writes %v", keys(p.Plan.Changes), keys(p.Plan.Withheld), p.Plan.Safety, q.writes)
	}

	q = &memApprovals{noDir: true, byID: map[string]store.Approval{}}
	g = decideOn(gateWith(q, approval.Safety{}), plan(), Real)
	if p = g.OrgPlan(); p.Plan.Safety == nil || g.Decision().Created != nil || len(q.writes) != 0 {
		t.Errorf("hold without a state directory: safety %v, created %+v, writes %v", p.Plan.Safety, g.Decision().Created, q.writes)
	}
}

// TestGateQuarantineWithAFakeStore: what a pending approval holds is held
// back whatever the plan's own count; what the plan no longer asks for is
// taken out of the approval (written in a real run only), which closes as
// dropped when nothing is left.
func TestGateQuarantineWithAFakeStore(t *testing.T) {
	t.Parallel()
	held := pendingOf("0000000a", store.Pending, removal("b@x"), removal("c@x"))

	q := newMem(held)
	g := decideOn(gateWith(q, approval.Safety{}), &reconcile.Plan{Changes: []reconcile.Change{creation("a@x"), removal("b@x")}}, Dry)
	d, p := g.Decision(), g.OrgPlan()
	if keys(p.Plan.Changes) != "a@x" || keys(p.Plan.Withheld) != "b@x" || keys(d.Quarantined) != "b@x" || len(q.writes) != 0 {
		t.Errorf("dry: changes %s, withheld %s, quarantined %s, writes %v", keys(p.Plan.Changes), keys(p.Plan.Withheld), keys(d.Quarantined), q.writes)
	}
	if len(d.Narrowed) != 1 || keys(d.Narrowed[0].Dropped) != "c@x" || d.Held() != 1 {
		t.Errorf("dry narrowing: %+v, held %d", d.Narrowed, d.Held())
	}

	g = decideOn(gateWith(q, approval.Safety{}), &reconcile.Plan{Changes: []reconcile.Change{removal("b@x")}}, Real)
	if a := q.byID[held.ID]; keys(a.Changes) != "b@x" || len(a.Narrowed) != 1 || a.Narrowed[0].Run != "run1" || len(g.OrgPlan().Plan.Changes) != 0 {
		t.Errorf("real narrowing wrote %+v, sent %s", a, keys(g.OrgPlan().Plan.Changes))
	}

	g = decideOn(gateWith(q, approval.Safety{}), &reconcile.Plan{Changes: []reconcile.Change{creation("a@x")}}, Real)
	if a := q.byID[held.ID]; a.Status != store.Dropped || a.Decided == nil || a.Decided.By != "run run1" || len(g.Decision().Pending) != 0 {
		t.Errorf("an approval with nothing left: %+v, pending %d", a, len(g.Decision().Pending))
	}
}

// TestGateHoldsRejectedAgain: what a rejected approval held and the
// sources still ask for is held again: as a new pending approval in a
// real run, which takes the rejected one up; held without a write in a
// dry one.
func TestGateHoldsRejectedAgain(t *testing.T) {
	t.Parallel()
	rejected := pendingOf("0000000b", store.Rejected, removal("b@x"))
	plan := func() *reconcile.Plan {
		return &reconcile.Plan{Changes: []reconcile.Change{removal("b@x"), creation("a@x")}}
	}

	q := newMem(rejected)
	if g := decideOn(gateWith(q, approval.Safety{}), plan(), Dry); keys(g.OrgPlan().Plan.Changes) != "a@x" || len(q.writes) != 0 {
		t.Errorf("dry: sent %s, wrote %v", keys(g.OrgPlan().Plan.Changes), q.writes)
	}
	g := decideOn(gateWith(q, approval.Safety{}), plan(), Real)
	again := g.Decision().HeldAgain
	if again == nil || keys(again.Changes) != "b@x" || keys(g.OrgPlan().Plan.Changes) != "a@x" {
		t.Fatalf("real: held again %+v, sent %s", again, keys(g.OrgPlan().Plan.Changes))
	}
	if r := q.byID[rejected.ID]; r.TakenUp != "run1" || r.HeldAgain != again.ID || q.byID[again.ID].Status != store.Pending {
		t.Errorf("the rejected approval %+v, the new one %+v", r, q.byID[again.ID])
	}
}

// TestGateFailsWhenTheStoreDoes: approvals that cannot be read fail the
// organization's run in phase gate: nothing is sent.
func TestGateFailsWhenTheStoreDoes(t *testing.T) {
	t.Parallel()
	q := newMem()
	q.fail = errors.New("disk gone")
	g := decideOn(gateWith(q, approval.Safety{}), &reconcile.Plan{Changes: []reconcile.Change{removal("b@x")}}, Real)
	if p := g.OrgPlan(); !errors.Is(p.Err, q.fail) || p.Phase != PhaseGate {
		t.Errorf("gate over a failing store: %v, phase %q", p.Err, p.Phase)
	}
}

// TestGatedHandsOutCopies: what a caller does with a gated plan's copy,
// or with the decision's, to the last list of groups, changes nothing of
// the gate's own, which Apply sends and the Result reports.
func TestGatedHandsOutCopies(t *testing.T) {
	t.Parallel()
	first := "Ann"
	update := reconcile.Change{Kind: reconcile.KindUpdate, User: reconcile.User{Type: reconcile.EnterpriseID, Email: "a@x", Groups: []string{"G"}},
		Set: &reconcile.Attrs{FirstName: &first}, Add: []string{"A"}, Remove: []string{"R"}}
	plan := overLimit([]reconcile.Change{update}, removal("b@x"), removal("c@x"))
	plan.Notes = []string{"n"}
	g := decideOn(gateWith(newMem(), approval.Safety{}), plan, Real)
	p, d := g.OrgPlan(), g.Decision()
	c := &p.Plan.Changes[0]
	c.User.Groups[0], c.Add[0], c.Remove[0], *c.Set.FirstName = "changed", "changed", "changed", "changed"
	p.Plan.Changes = append(p.Plan.Changes, removal("d@x"))
	p.Plan.Notes[0], p.Org = "changed", &config.NamedTarget{Name: "other"}
	d.Created.Changes[0], d.Created.ID, d.Pending[0].Changes[1] = removal("e@x"), "changed", removal("f@x")
	q, e := g.OrgPlan(), g.Decision()
	if c := q.Plan.Changes[0]; keys(q.Plan.Changes) != "a@x" || c.User.Groups[0] != "G" || c.Add[0] != "A" || c.Remove[0] != "R" ||
		*c.Set.FirstName != "Ann" || q.Plan.Notes[0] != "n" || q.Org.Name != "main" {
		t.Errorf("the gated plan changed: %+v, %v, %s", q.Plan.Changes, q.Plan.Notes, q.Org.Name)
	}
	if e.Created.ID == "changed" || keys(e.Created.Changes) != "b@x,c@x" || keys(e.Pending[0].Changes) != "b@x,c@x" {
		t.Errorf("the gate's decision changed: %+v", e)
	}
}

// TestReleaseWithAFakeStore: a release lets through what the approval
// still holds and the fresh plan wants, and nothing else; one the store
// cannot claim is refused in phase gate; an unknown id is refused.
func TestReleaseWithAFakeStore(t *testing.T) {
	t.Parallel()
	held := pendingOf("0000000c", store.Pending, removal("b@x"), removal("c@x"))
	j := &Job{gate: gateWith(newMem(held), approval.Safety{})}
	p := &OrgPlan{Org: &config.NamedTarget{Name: "main"}, Run: "run1", Plan: &reconcile.Plan{Changes: []reconcile.Change{creation("a@x")},
		Withheld: []reconcile.Change{removal("b@x")}}}
	g, err := j.Release(p, held.ID, store.Decider{By: "alice"}, Dry)
	if err != nil || keys(g.OrgPlan().Plan.Changes) != "b@x" || keys(g.Decision().Dropped) != "c@x" || g.Decision().Released.ID != held.ID {
		t.Fatalf("dry release: %v", cmp.Or(err, fmt.Errorf("sends %s, dropped %s", keys(g.OrgPlan().Plan.Changes), keys(g.Decision().Dropped))))
	}
	if _, err := j.Release(p, held.ID, store.Decider{By: "alice"}, Real); PhaseOf(err) != PhaseGate || !strings.Contains(err.Error(), "claimed") {
		t.Errorf("a release the store cannot claim: %v", err)
	}
	if _, err := j.Release(p, "0000000d", store.Decider{By: "alice"}, Dry); !errors.Is(err, store.ErrNoApproval) {
		t.Errorf("an unknown approval: %v", err)
	}
}
