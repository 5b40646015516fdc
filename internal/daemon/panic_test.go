package daemon

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/robfig/cron/v3"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// A run that panics fails, and the daemon stays up: the panic is logged
// with its stack, counted in the metrics, /healthz shows the failed run,
// and the next run runs (and is counted too).
func TestDaemonRecoversPanickingRun(t *testing.T) {
	sched, err := cron.ParseStandard("@every 1h")
	if err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zap.InfoLevel)
	// A daemon without a job: its run dereferences nil, a bug.
	d := &daemon{log: zap.New(core), metrics: newMetrics(), sched: sched}
	d.runOnce(context.Background())
	d.runOnce(context.Background())
	if st := d.last.Load(); st == nil || st.Result != "failure" || !strings.Contains(st.Error, "internal error") {
		t.Errorf("last run %+v, want a failure saying internal error", st)
	}
	if n := logs.FilterMessageSnippet("a panic ended the run").Len(); n != 2 {
		t.Errorf("%d panics logged, want 2: %v", n, logs.All())
	}
	rec := httptest.NewRecorder()
	d.metrics.handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, want := range []string{"orgsync_run_panics_total 2", `orgsync_runs_total{result="failure"} 2`} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// The start line names the zone the schedule runs in, never "": the
// machine's local time when the configuration names none.
func TestZoneNamed(t *testing.T) {
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
