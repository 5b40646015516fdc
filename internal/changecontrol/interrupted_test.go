package changecontrol

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umsim"
)

var alice = store.Decider{By: "alice", Via: "orgsync approve"}

// approveWith approves id of the configuration at path as alice, with
// faults asked before each write to the state directory; it returns
// whether it applied changes it could not record, and the approve's
// error.
func approveWith(t *testing.T, path, id string, log *zap.Logger, faults func(string) error) (bool, error) {
	cfg := load(t, path)
	c := New(cfg, log).WithFaults(faults)
	j, err := run.New(cfg, run.Overrides{}, run.Options{Observer: c, Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Approve(context.Background(), j, id, quietView{}, ApproveOptions{By: alice})
	c.Wait()
	return c.Unrecorded(), err
}

// steps counts the writes of a fault-free approve of a fresh fixture,
// by name, in order.
func steps(t *testing.T) []string {
	path, _, id := heldFixture(t)
	var names []string
	var mu sync.Mutex
	if _, err := approveWith(t, path, id, zap.NewNop(), func(step string) error {
		mu.Lock()
		names = append(names, step)
		mu.Unlock()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return names
}

// heldFixture is the CSV example with an approval of two removals (bob
// from Design, mallory from Marketing and All Apps) pending.
func heldFixture(t *testing.T) (string, *umsim.Server, string) {
	t.Helper()
	path, sim := csvExample(t, true)
	cfg := load(t, path)
	held := syncOnce(t, New(cfg, zap.NewNop()), cfg, run.Real)[0].Decision.Created
	if held == nil || len(held.Changes) != 2 {
		t.Fatalf("the sync held %+v, want two removals", held)
	}
	return path, sim.Org(cfg.Primary().OrgID), held.ID
}

// TestApproveOnAFullDiskAtEachStep: an approve whose disk is full from
// each of its writes on fails, or says that what it applied is not
// recorded, and the next command that touches the approval (here a sync,
// whose gate recovers it) finishes it as above; that sync may then drop
// what the service applied without an answer saying so (the sources no
// longer ask for it).
func TestApproveOnAFullDiskAtEachStep(t *testing.T) {
	t.Parallel()
	names := steps(t)
	for k := 1; k <= len(names); k++ {
		t.Run(fmt.Sprintf("%d %s", k, names[k-1]), func(t *testing.T) {
			path, sim, id := heldFixture(t)
			n := 0
			var mu sync.Mutex
			full := func(string) error {
				mu.Lock()
				defer mu.Unlock()
				if n++; n >= k {
					return syscall.ENOSPC
				}
				return nil
			}
			unrecorded, err := approveWith(t, path, id, zap.NewNop(), full)
			if last := k == len(names); err == nil && !unrecorded && !last { // the last step removes the journal of a recorded apply
				t.Errorf("an approve on a disk full from step %d succeeded, and said all was recorded", k)
			}
			cfg := load(t, path)
			c := New(cfg, zap.NewNop())
			syncOnce(t, c, cfg, run.Real)
			checkRecovered(t, c.StateDir(), sim, id)
		})
	}
}

// checkRecovered checks what an interrupted approve of approval id left
// once recovered: nothing of the apply (journal, claim) is left; the
// approval is approved, every change applied by the service and in the
// history, or pending with every change the service did not apply, and
// those it applied either in the history or still held (no answer said
// so), or dropped by a sync, every change applied; the history says
// applied only of what the service applied.
func checkRecovered(t *testing.T, dir *store.Dir, sim *umsim.Server, id string) {
	t.Helper()
	left, _ := filepath.Glob(filepath.Join(dir.Path(), "approvals", "*"+id+".*"))
	if len(left) != 1 || filepath.Base(left[0]) != id+".json" {
		t.Errorf("the approvals folder holds %v, want %s.json only", left, id)
	}
	a, err := dir.Approval(id)
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != store.Approved && a.Status != store.Pending && a.Status != store.Dropped {
		t.Fatalf("approval %s, want approved, pending, or dropped by a sync after the recovery", a.Status)
	}
	entries, err := dir.History(store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	inHistory := func(user string) bool {
		return slices.ContainsFunc(entries, func(e store.Entry) bool {
			return e.Approval == id && e.User == user && e.Result == store.ResultApplied
		})
	}
	held := func(user string) bool {
		return slices.ContainsFunc(a.Changes, func(c reconcile.Change) bool { return c.Key() == user })
	}
	for user, group := range map[string]string{"bob@example.com": "Design", "mallory@example.com": "Marketing"} {
		applied := !memberOf(sim, user, group)
		switch {
		case inHistory(user) && !applied:
			t.Errorf("%s: the history says applied, the service did not apply it", user)
		case a.Status == store.Approved && !(applied && inHistory(user)):
			t.Errorf("%s: approved, but applied %v, in the history %v", user, applied, inHistory(user))
		case a.Status == store.Dropped && !applied:
			t.Errorf("%s: dropped, but not applied", user)
		case a.Status == store.Pending && !applied && !held(user):
			t.Errorf("%s: not applied, and no longer held by the pending approval: %+v", user, a.Changes)
		case a.Status == store.Pending && applied && !inHistory(user) && !held(user):
			t.Errorf("%s: applied, neither in the history nor held: lost", user)
		}
	}
}

// memberOf reports whether user is in group in the simulator.
func memberOf(sim *umsim.Server, user, group string) bool {
	for _, u := range sim.Snapshot().Users {
		if strings.EqualFold(u.Email, user) {
			return slices.ContainsFunc(u.Groups, func(g string) bool { return strings.EqualFold(g, group) })
		}
	}
	return false
}
