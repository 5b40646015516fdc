package run

import (
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/orgsync/orgsync/reconcile"
)

// TestSummaryLogsEveryKind: the summary line of an organization's run
// has the count of every kind of the reconciler's table, by its name.
func TestSummaryLogsEveryKind(t *testing.T) {
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
