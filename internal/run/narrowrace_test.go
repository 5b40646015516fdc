package run

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/store"
)

// A decision on a pending approval (a run's narrowing, a rejection, an
// approve) is a claim on it: when two orgsync processes (the daemon's
// scheduled sync and an approve on its page, or two syncs sharing
// state.dir) decide on the same approval at once, exactly one wins and
// the other reads it again. These tests make the other decision land
// inside the narrowing run, at the state directory's first write that
// names the approval (store.Options.Faults), through a second store on
// the same folder: the files and locks two processes share.

// narrowable is the tripped example after a first run that held bob's
// and mallory's removals, with bob back in design: the next run narrows
// the approval (drops bob's removal, keeps mallory's). It returns the
// approval and a second store on the same state directory.
func narrowable(t *testing.T) (*tripped, *store.Approval, *store.Dir) {
	t.Helper()
	tr := newTripped(t, "\nstate:\n  dir: state")
	a := tr.sync(t, Real).Decision.Created
	if a == nil || len(a.Changes) != 2 {
		t.Fatalf("the first run held %+v, want bob's and mallory's removals", a)
	}
	tr.edit(t, tr.csv, "bob@example.com,DE,eng", `bob@example.com,DE,"eng,design"`)
	cfg, err := config.Load(tr.path)
	if err != nil {
		t.Fatal(err)
	}
	other, err := store.Open(cfg.State.Dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tr, a, other
}

// syncWith runs the configuration once with faults asked at each write to
// the state directory.
func (tr *tripped) syncWith(t *testing.T, faults func(step string) error) *Result {
	t.Helper()
	cfg, err := config.Load(tr.path)
	if err != nil {
		t.Fatal(err)
	}
	j, err := New(cfg, Overrides{}, Options{Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := j.Sync(context.Background(), Real, nil)
	return res[0]
}

// once calls do at the first step that names id, and never again.
func once(id string, do func()) func(step string) error {
	var o sync.Once
	return func(step string) error {
		if strings.Contains(step, id) {
			o.Do(do)
		}
		return nil
	}
}

// rejectIn rejects approval id in dir as orgsync reject does: the claim,
// the close, the journal removed.
func rejectIn(dir *store.Dir, id string) error {
	a, ap, _, err := dir.Claim(id, store.NewClaimant("reject-run", store.Decider{By: "alice", Via: "orgsync reject"}, nil))
	if err != nil {
		return err
	}
	if err := ap.Close(a, store.Rejected, store.Decider{By: "alice", Via: "orgsync reject"}); err != nil {
		ap.Release()
		return err
	}
	return ap.Finish()
}

// TestNarrowingDoesNotUndoARejection: another orgsync rejects the
// approval after the run read it and before the run writes its
// narrowing: the approval stays rejected (the run does not write back
// the pending approval it read), the run records no narrowing, and it
// sends nothing the approval held.
func TestNarrowingDoesNotUndoARejection(t *testing.T) {
	t.Parallel()
	tr, a, other := narrowable(t)
	var rejected error
	r := tr.syncWith(t, once(a.ID, func() { rejected = rejectIn(other, a.ID) }))
	if rejected != nil {
		t.Fatalf("the rejection beside the run: %v", rejected)
	}
	got, err := other.Approval(a.ID)
	if err != nil || got.Status != store.Rejected || got.Decided == nil || got.Decided.By != "alice" {
		t.Fatalf("approval after the run: %+v, %v; want it rejected by alice, as decided beside the run", got, err)
	}
	if r.Err != nil || len(r.Decision.Narrowed) != 0 || tr.changes.Destructive() != 0 {
		t.Errorf("the run: %v, narrowed %+v, %d destructive steps sent; want no narrowing recorded and nothing destructive sent",
			r.Err, r.Decision.Narrowed, tr.changes.Destructive())
	}
}

// TestRejectionWaitsForTheNarrowing: a rejection that comes while the
// run holds its claim to narrow the approval waits for it, reads the
// approval again and rejects what is left: the approval ends rejected
// with the run's narrowing in it.
func TestRejectionWaitsForTheNarrowing(t *testing.T) {
	t.Parallel()
	tr, a, other := narrowable(t)
	done := make(chan error, 1)
	save := "save " + a.ID + " " + store.Pending // the narrowing's write
	r := tr.syncWith(t, once(save, func() {
		go func() { done <- rejectIn(other, a.ID) }()
		time.Sleep(200 * time.Millisecond) // the rejection tries meanwhile
	}))
	if err := <-done; err != nil {
		t.Fatalf("the rejection during the narrowing: %v", err)
	}
	got, err := other.Approval(a.ID)
	if err != nil || got.Status != store.Rejected || len(got.Narrowed) != 1 || len(got.Changes) != 1 || got.Changes[0].Key() != "mallory@example.com" {
		t.Fatalf("approval after both: %+v, %v; want it rejected with the narrowing (mallory's removal left)", got, err)
	}
	if r.Err != nil || len(r.Decision.Narrowed) != 1 {
		t.Errorf("the run: %v, narrowed %+v; want the narrowing recorded", r.Err, r.Decision.Narrowed)
	}
}

// TestTwoRunsNarrowOnce: two runs sharing the state directory narrow the
// same approval at once (the second runs whole inside the first, after
// the first read the approvals): one records the narrowing, the other
// reads it again and finds nothing left to narrow.
func TestTwoRunsNarrowOnce(t *testing.T) {
	t.Parallel()
	tr, a, other := narrowable(t)
	var second *Result
	first := tr.syncWith(t, once(a.ID, func() { second = tr.syncWith(t, nil) }))
	if second == nil {
		t.Fatal("the second run did not run inside the first")
	}
	if n := len(first.Decision.Narrowed) + len(second.Decision.Narrowed); n != 1 {
		t.Errorf("the two runs narrowed the approval %d times (first %+v, second %+v), want once", n, first.Decision.Narrowed, second.Decision.Narrowed)
	}
	got, err := other.Approval(a.ID)
	if err != nil || got.Status != store.Pending || len(got.Narrowed) != 1 || len(got.Changes) != 1 {
		t.Errorf("approval after both runs: %+v, %v; want it pending, narrowed once, mallory's removal left", got, err)
	}
}
