package run

import (
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/orgsync/orgsync/internal/util/memlimit"
	"github.com/orgsync/orgsync/reconcile"
)

// TestSummaryLogsEveryKind: the summary line of an organization's run
// has the count of every kind of the reconciler's table, by its name.
func TestSummaryLogsEveryKind(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zap.InfoLevel)
	var changes []reconcile.Change
	for _, k := range reconcile.Kinds() {
		changes = append(changes, reconcile.Change{Kind: k})
	}
	summary(zap.New(core), &Result{Counts: (&reconcile.Plan{Changes: changes}).Counts()}, nil)
	entries := logs.All()
	if len(entries) != 1 {
		t.Fatalf("%d log lines, want the summary", len(entries))
	}
	fields := entries[0].ContextMap()
	for _, k := range reconcile.Kinds() {
		if n, ok := fields[string(k)].(int64); !ok || n != 1 {
			t.Errorf("summary %s: %v, want 1", k, fields[string(k)])
		}
	}
}

// TestSummaryWarnsNearTheMemoryLimit: a run whose peak memory came near
// what the process may use says so, with both figures; one well under it
// says nothing more than its summary.
func TestSummaryWarnsNearTheMemoryLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		peak, bound uint64
		warn        bool
	}{{900 << 20, 1 << 30, true}, {300 << 20, 1 << 30, false}, {900 << 20, 0, false}} {
		core, logs := observer.New(zap.InfoLevel)
		summary(zap.New(core), &Result{Memory: memlimit.Usage{Peak: tc.peak, Bound: tc.bound}}, nil)
		warned := logs.FilterLevelExact(zap.WarnLevel).All()
		if (len(warned) == 1) != tc.warn {
			t.Errorf("peak %d of %d: %d warnings, want one: %v", tc.peak, tc.bound, len(warned), tc.warn)
			continue
		}
		if tc.warn && warned[0].Message != "the run's peak memory, 900 MiB, is 88% of the 1024 MiB this process may use: a larger organization may be killed for memory; give the container more memory (docs/deployment.md, Memory)" {
			t.Errorf("warning %q", warned[0].Message)
		}
		if s := logs.FilterMessage("summary").All(); len(s) != 1 || (tc.bound > 0) != (s[0].ContextMap()["memoryLimit"] != nil) {
			t.Errorf("summary %+v", s)
		}
	}
}

// TestPlannedRunWarnsBeforeItNeedsTooMuch: a run whose plan is expected to
// need most of what the process may use says so once planned, before it
// sends anything; its result carries the estimate (the run record's
// nearMemoryLimit).
func TestPlannedRunWarnsBeforeItNeedsTooMuch(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zap.InfoLevel)
	p := &OrgPlan{log: zap.New(core)}
	p.expectMemory(1_000_000, 1_000_000, 500_000, 1<<30)
	warned := logs.FilterLevelExact(zap.WarnLevel).All()
	if len(warned) != 1 || !strings.HasPrefix(warned[0].Message, "this run is expected to need about 1164 MiB at its peak (1000000 users in the organization, 1000000 from the sources, 500000 changes to send), 114% of the 1024 MiB") {
		t.Fatalf("warnings %v", warned)
	}
	if !p.memory.Near() || p.memory.PeakNear() {
		t.Errorf("usage %+v", p.memory)
	}
	core, logs = observer.New(zap.InfoLevel)
	p = &OrgPlan{log: zap.New(core)}
	if p.expectMemory(1_000_000, 1_000_000, 1000, 1<<30); logs.Len() != 0 || p.memory.Near() {
		t.Errorf("a run of 1,000 changes in 1 GiB: %v, %+v", logs.All(), p.memory)
	}
}
