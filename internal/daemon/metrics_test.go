package daemon

import (
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/run/incremental"
	"github.com/orgsync/orgsync/target/umapi"
)

// TestMetricsPerOrganization: a run of two organizations, one failed,
// counts in the run's series (sums) and in each organization's, by its
// org label.
func TestMetricsPerOrganization(t *testing.T) {
	t.Parallel()
	m := newMetrics()
	main, emea := &config.NamedTarget{Name: "main"}, &config.NamedTarget{Name: "emea"}
	boom := errors.New("boom")
	m.observe([]*run.Result{
		{Org: main, ByKind: map[string]int{"create": 3}, Elapsed: 2 * time.Second, Read: run.Reading{Kind: incremental.Incremental},
			Stats: umapi.Stats{Requests: map[string]map[int]int{umapi.EndpointAction: {200: 4}}, TooManyRequests: 1}},
		{Org: emea, ByKind: map[string]int{"create": 1}, Elapsed: time.Second, Err: boom, Read: run.Reading{Kind: incremental.Full},
			Stats: umapi.Stats{Requests: map[string]map[int]int{umapi.EndpointOrgUsers: {200: 2}}}},
	}, boom, time.Unix(1000, 0))
	m.skipped([]string{"main", "emea"})
	rec := httptest.NewRecorder()
	m.handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		`orgsync_runs_total{result="failure"} 1`,
		`orgsync_runs_total{result="skipped"} 1`,
		`orgsync_changes_total{kind="create"} 4`,
		`orgsync_api_requests_total{status="200"} 6`,
		`orgsync_api_rate_limited_total 1`,
		`orgsync_run_duration_seconds_sum 2`,
		`orgsync_org_runs_total{org="main",result="success"} 1`,
		`orgsync_org_runs_total{org="emea",result="failure"} 1`,
		`orgsync_org_runs_total{org="emea",result="skipped"} 1`,
		`orgsync_org_changes_total{kind="create",org="main"} 3`,
		`orgsync_org_api_requests_total{org="emea",status="200"} 2`,
		`orgsync_org_api_rate_limited_total{org="main"} 1`,
		`orgsync_org_last_success_timestamp_seconds{org="main"} 1000`,
		`orgsync_org_run_duration_seconds_sum{org="emea"} 1`,
		`orgsync_reads_total{kind="full"} 1`,
		`orgsync_reads_total{kind="incremental"} 1`,
		`orgsync_org_reads_total{kind="incremental",org="main"} 1`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(string(body), `orgsync_org_last_success_timestamp_seconds{org="emea"}`) || strings.Contains(string(body), "orgsync_last_success_timestamp_seconds ") {
		t.Errorf("a failed organization or run set a last success:\n%s", body)
	}
}
