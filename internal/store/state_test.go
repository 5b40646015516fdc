package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orgsync/orgsync/reconcile"
)

func open(t *testing.T, o Options) *Dir {
	t.Helper()
	d, err := Open(filepath.Join(t.TempDir(), "state"), o)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestHistoryFilters(t *testing.T) {
	t.Parallel()
	d := open(t, Options{})
	now := time.Now().UTC()
	entries := []Entry{
		{Run: "r1", Time: now.Add(-48 * time.Hour), Org: "emea", User: "ann@example.com", Kind: "update", Steps: []string{"remove Design"}, Result: ResultApplied},
		{Run: "r2", Time: now, Org: "emea", User: "bob@example.com", Kind: "remove", Steps: []string{"removeFromOrg"}, Result: ResultFailed, Code: "error.user.nonexistent"},
		{Run: "r2", Time: now, Org: "amer", User: "Ann@Example.com", Kind: "update", Steps: []string{"add Engineering"}, Result: ResultTestOnly},
	}
	if err := d.AppendHistory(entries[:1]); err != nil {
		t.Fatal(err)
	}
	if err := d.AppendHistory(entries[1:]); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    Filter
		runs []string
	}{
		{"all", Filter{}, []string{"r1", "r2", "r2"}},
		{"user in any letter case", Filter{User: "ANN@example.com"}, []string{"r1", "r2"}},
		{"org", Filter{Org: "emea"}, []string{"r1", "r2"}},
		{"since", Filter{Since: now.Add(-time.Hour)}, []string{"r2", "r2"}},
		{"all three", Filter{User: "ann@example.com", Org: "amer", Since: now.Add(-time.Hour)}, []string{"r2"}},
	} {
		got, err := d.History(tc.f)
		if err != nil {
			t.Fatal(err)
		}
		var runs []string
		for _, e := range got {
			runs = append(runs, e.Run)
		}
		if strings.Join(runs, ",") != strings.Join(tc.runs, ",") {
			t.Errorf("%s: runs %v, want %v", tc.name, runs, tc.runs)
		}
	}
}

func TestHistorySkipsATornLine(t *testing.T) {
	t.Parallel()
	d := open(t, Options{})
	if err := d.AppendHistory([]Entry{{Run: "r1", User: "a@example.com"}}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(d.Path(), historyFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`{"run":"r2","us`) // a crash in the middle of a line
	f.Close()
	got, err := d.History(Filter{})
	if err != nil || len(got) != 1 || got[0].Run != "r1" {
		t.Fatalf("history %+v, %v: want the one whole entry", got, err)
	}
}

func TestLogRotatesBySizeAndPrunesByAge(t *testing.T) {
	t.Parallel()
	d := open(t, Options{MaxFileBytes: 300, Retention: time.Hour})
	for i := range 20 {
		if err := d.AppendRun(&Run{ID: string(rune('a' + i)), Org: "default", Result: RunSuccess}); err != nil {
			t.Fatal(err)
		}
	}
	rotated, _ := d.runs.rotated()
	if len(rotated) < 3 {
		t.Fatalf("%d rotated files after 20 runs of ~90 bytes with a 300-byte limit, want several", len(rotated))
	}
	for _, p := range append(rotated, d.runs.path) {
		if fi, _ := os.Stat(p); fi.Size() > 300 {
			t.Errorf("%s has %d bytes, over the 300 allowed", filepath.Base(p), fi.Size())
		}
	}
	runs, err := d.Runs(0)
	if err != nil || len(runs) != 20 || runs[0].ID != "a" || runs[19].ID != "t" {
		t.Fatalf("runs %d, %v: want all 20 in order", len(runs), err)
	}
	if last, _ := d.Runs(2); len(last) != 2 || last[1].ID != "t" {
		t.Errorf("Runs(2) = %+v, want the last two", last)
	}
	old := time.Now().Add(-2 * time.Hour)
	for _, p := range rotated {
		_ = os.Chtimes(p, old, old)
	}
	for range 5 { // the next rotation prunes
		_ = d.AppendRun(&Run{ID: "new", Org: "default"})
	}
	for _, p := range rotated {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s, older than the retention, was kept", filepath.Base(p))
		}
	}
}

func TestApprovalLifecycle(t *testing.T) {
	t.Parallel()
	d := open(t, Options{})
	a := &Approval{ID: NewID(), Org: "emea", Created: time.Now().UTC(), Status: Pending, Reason: "3 removals exceed maxRemovals 1",
		Changes: []reconcile.Change{{Kind: reconcile.KindRemove, User: reconcile.User{Type: reconcile.EnterpriseID, Email: "x@example.com"}}}}
	if err := d.SaveApproval(a); err != nil {
		t.Fatal(err)
	}
	if p, _ := d.Approvals("emea", Pending); len(p) != 1 || p[0].ID != a.ID || len(p[0].Changes) != 1 {
		t.Fatalf("pending %+v, want the one saved", p)
	}
	if p, _ := d.Approvals("amer", ""); len(p) != 0 {
		t.Errorf("another organization's approvals: %+v", p)
	}
	// Two approvers at once: exactly one claims it, the others are told
	// at once (an apply is not waited for). (The claims are kept: a claim
	// dropped and collected closes its journal, and frees its lock as a
	// dead claimer's would.)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var claims []*Applying
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, ap, _, err := d.Claim(a.ID, NewClaimant("r1", Decider{By: "alice"}, []string{"x@example.com"})); err == nil {
				mu.Lock()
				claims = append(claims, ap)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(claims) != 1 {
		t.Fatalf("claimed %d times, want once", len(claims))
	}
	defer claims[0].Release()
	if p, _ := d.Approvals("", Pending); len(p) != 0 {
		t.Errorf("a claimed approval is still listed as pending: %+v", p)
	}
	if err := d.Close(a, Approved, Decider{By: "alice", Via: "orgsync approve"}); err != nil {
		t.Fatal(err)
	}
	got, err := d.Approval(a.ID)
	if err != nil || got.Status != Approved || got.Closed.IsZero() || got.Decided.String() != "alice via orgsync approve" {
		t.Fatalf("after close: %+v, %v", got, err)
	}
	if resolved, err := d.Resolved(got.Closed.Add(-time.Minute)); err != nil || len(resolved) != 1 || resolved[0].ID != a.ID {
		t.Errorf("resolved since a minute before: %+v, %v", resolved, err)
	}
	if resolved, _ := d.Resolved(got.Closed.Add(time.Minute)); len(resolved) != 0 {
		t.Errorf("resolved since a minute after: %+v", resolved)
	}
	if _, _, _, err := d.Claim(a.ID, NewClaimant("r2", Decider{By: "bob"}, nil)); err == nil {
		t.Error("an approved approval was claimed again")
	}
}

// TestPendingIDs: the pending approvals' ids, oldest first; none, and no
// directory made, where there is none.
func TestPendingIDs(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "state")
	if ids := PendingIDs(missing); ids != nil {
		t.Errorf("a missing directory: %q", ids)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("PendingIDs made the directory: %v", err)
	}
	d := open(t, Options{})
	now := time.Now().UTC()
	for i, a := range []*Approval{{ID: "0000000b", Status: Pending}, {ID: "0000000a", Status: Pending}, {ID: "0000000c", Status: Rejected}} {
		a.Org, a.Created = "main", now.Add(time.Duration(i)*time.Second)
		if err := d.SaveApproval(a); err != nil {
			t.Fatal(err)
		}
	}
	if ids := PendingIDs(d.Path()); strings.Join(ids, " ") != "0000000b 0000000a" {
		t.Errorf("pending ids %q, want 0000000b 0000000a", ids)
	}
	if ids := PendingIDs(""); ids != nil {
		t.Errorf("no path: %q", ids)
	}
}

func TestApprovalIDIsChecked(t *testing.T) {
	t.Parallel()
	d := open(t, Options{})
	for _, id := range []string{"../../etc/passwd", "", "ABCDEF12", "1234567"} {
		if _, err := d.Approval(id); err == nil || strings.Contains(err.Error(), "no such file") {
			t.Errorf("id %q: error %v, want one naming the id's shape", id, err)
		}
	}
	if _, err := d.Approval("0123abcd"); err == nil || !strings.Contains(err.Error(), "no such pending approval") {
		t.Errorf("unknown id: %v", err)
	}
}

func writeFile(path string, data []byte) error { return os.WriteFile(path, data, 0o600) }

// TestDecisionsWaitForEachOther: eight failed attempts noted at once in
// one approval (each a decision under its claim) are all kept: each waits
// for the one before and reads the approval again, none writes over
// another's.
func TestDecisionsWaitForEachOther(t *testing.T) {
	d := open(t, Options{})
	a := &Approval{ID: NewID(), Org: "emea", Created: time.Now().UTC(), Status: Pending,
		Changes: []reconcile.Change{{Kind: reconcile.KindRemove, User: reconcile.User{Type: reconcile.EnterpriseID, Email: "x@example.com"}}}}
	if err := d.SaveApproval(a); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			at := Attempt{Time: time.Now().UTC(), Run: fmt.Sprint("r", i), Decided: Decider{By: "alice"}, Phase: "sources", Error: "unreadable"}
			if kept, err := d.NoteAttempt(a.ID, at); !kept || err != nil {
				t.Errorf("attempt %d: noted %v, %v", i, kept, err)
			}
		})
	}
	wg.Wait()
	got, err := d.Approval(a.ID)
	if err != nil || got.Status != Pending || len(got.Attempts) != 8 {
		t.Fatalf("approval after 8 attempts at once: %+v, %v; want pending with the 8 attempts", got, err)
	}
	if left, _ := filepath.Glob(filepath.Join(d.Path(), approvalsDir, "*journal*")); len(left) != 0 {
		t.Errorf("journals left behind: %v", left)
	}
}
