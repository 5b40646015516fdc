package daemon

import (
	"context"
	"strings"
	"testing"

	"github.com/robfig/cron/v3"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/reconcile"
)

// panicking is an observer with a bug: it panics when it hears that an
// organization was read.
type panicking struct{ run.NopObserver }

func (panicking) Read(*run.OrgPlan, *reconcile.Current) { panic("a bug") }

// A run that panics fails, and the daemon stays up: the panic is logged
// with its stack, counted in the metrics, /healthz shows the failed run,
// and the next run runs (and is counted too).
func TestDaemonRecoversPanickingRun(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zap.InfoLevel)
	s := setupOf(t, example(t, ""), zap.New(core))
	s.RunOptions.Observer = panicking{}
	d := newTestDaemon(t, s)
	d.runOnce(context.Background())
	d.runOnce(context.Background())
	if st := d.last.Load(); st == nil || st.Result != "failure" || !strings.Contains(st.Error, "internal error") {
		t.Errorf("last run %+v, want a failure saying internal error", st)
	}
	if n := logs.FilterMessageSnippet("a panic ended the run").Len(); n != 2 {
		t.Errorf("%d panics logged, want 2: %v", n, logs.All())
	}
	wantMetrics(t, d, "orgsync_run_panics_total 2", `orgsync_runs_total{result="failure"} 2`)
}

// The start line names the zone the schedule runs in, never "": the
// machine's local time when the configuration names none.
func TestZoneNamed(t *testing.T) {
	t.Parallel()
	for spec, want := range map[string]string{
		"0 2 * * *":                       "local time of this machine (",
		"CRON_TZ=Europe/Berlin 0 2 * * *": "Europe/Berlin (",
	} {
		sched, err := cron.ParseStandard(spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := (&daemon{sched: sched}).zone(); !strings.HasPrefix(got, want) {
			t.Errorf("%s: zone %q, want %q…", spec, got, want)
		}
	}
}
