package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.uber.org/zap"
	"gopkg.in/yaml.v3"

	"github.com/orgsync/orgsync/internal/util/testenv"
)

// The operators' tools of examples/monitoring.
var (
	alertRules = filepath.Join("..", "..", "examples", "monitoring", "orgsync-alerts.yaml")
	dashboard  = filepath.Join("..", "..", "examples", "monitoring", "orgsync-dashboard.json")
)

// scraped is what a real daemon's /metrics said, at a time.
type scraped struct {
	at       time.Time
	families map[string]*dto.MetricFamily
}

// scrapeNow parses the daemon's /metrics now.
func scrapeNow(t *testing.T, d *daemon) scraped {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(scrape(d)))
	if err != nil {
		t.Fatal(err)
	}
	return scraped{at: time.Now(), families: fams}
}

// series is the one series of metric name (with the labels a scrape of
// job orgsync adds) and its value; the test fails when there is not
// exactly one.
func (s scraped) series(t *testing.T, name string) (string, float64) {
	t.Helper()
	f := s.families[name]
	if f == nil || len(f.Metric) != 1 {
		t.Fatalf("the daemon exports %d series of %s, want 1", len(f.GetMetric()), name)
	}
	m := f.Metric[0]
	labels := []string{`instance="orgsync:9090"`, `job="orgsync"`}
	for _, l := range m.Label {
		labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
	}
	sort.Strings(labels)
	v := m.GetGauge().GetValue() + m.GetCounter().GetValue()
	return name + "{" + strings.Join(labels, ",") + "}", v
}

// exported are the metric names the scrapes have (a histogram's with its
// _bucket, _sum and _count).
func exported(scrapes ...scraped) map[string]bool {
	out := map[string]bool{}
	for _, s := range scrapes {
		for name, f := range s.families {
			out[name] = true
			if f.GetType() == dto.MetricType_HISTOGRAM {
				out[name+"_bucket"], out[name+"_sum"], out[name+"_count"] = true, true, true
			}
		}
	}
	return out
}

// ruleFile is the part of a Prometheus rule file the test reads.
type ruleFile struct {
	Groups []struct {
		Rules []struct {
			Alert       string            `yaml:"alert"`
			Expr        string            `yaml:"expr"`
			Labels      map[string]string `yaml:"labels"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

// dashboardExprs are the PromQL expressions of the dashboard's panels.
func dashboardExprs(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(dashboard)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("%s: %v", dashboard, err)
	}
	var out []string
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			out = append(out, tg.Expr)
		}
	}
	return out
}

// metricName finds the orgsync metric names of a PromQL expression.
var metricName = regexp.MustCompile(`\borgsync_[a-z0-9_]+`)

// TestAlertsAndDashboardAgainstARealDaemon: a real daemon holds changes,
// fails a run and loses its configuration; from its /metrics: every
// metric the alert rules and the dashboard use is one it exports; the
// rules pass promtool check rules; the dashboard's queries parse; and each
// alert fires (and not before) in promtool test rules on the series the
// daemon exported, with the values they had.
func TestAlertsAndDashboardAgainstARealDaemon(t *testing.T) {
	t.Parallel()
	promtool := testenv.Program(t, "prometheus", "promtool")
	path := heldExample(t, "")
	d := newTestDaemon(t, setupOf(t, path, zap.NewNop()))
	d.runOnce(context.Background())
	held := scrapeNow(t, d)
	users := filepath.Join(filepath.Dir(path), "users.csv")
	if err := os.Rename(users, users+".away"); err != nil {
		t.Fatal(err)
	}
	d.runOnce(context.Background())
	failed := scrapeNow(t, d)
	setUnmatchedUsers(t, path, "sometimes")
	d.reload()
	broken := scrapeNow(t, d)
	names := exported(held, failed, broken)

	data, err := os.ReadFile(alertRules)
	if err != nil {
		t.Fatal(err)
	}
	var rules ruleFile
	if err := yaml.Unmarshal(data, &rules); err != nil {
		t.Fatal(err)
	}
	exprs := dashboardExprs(t)
	for _, r := range rules.Groups[0].Rules {
		exprs = append(exprs, r.Expr)
	}
	for _, e := range exprs {
		for _, name := range metricName.FindAllString(e, -1) {
			if !names[name] {
				t.Errorf("%s is not a metric the daemon exports (in %s)", name, e)
			}
		}
	}
	dir := t.TempDir()
	promtoolRun(t, promtool, "check", "rules", alertRules)
	promtoolRun(t, promtool, "check", "rules", dashboardAsRules(t, dir, dashboardExprs(t)))

	tests := alertTests(t, rules, held, failed, broken)
	testFile := filepath.Join(dir, "orgsync-alerts-test.yaml")
	rulesAbs, _ := filepath.Abs(alertRules)
	doc := map[string]any{"rule_files": []string{rulesAbs}, "evaluation_interval": "1m", "tests": tests}
	out, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(testFile, out, 0o600); err != nil {
		t.Fatal(err)
	}
	promtoolRun(t, promtool, "test", "rules", testFile)
	var tested []string
	for _, tc := range tests {
		for _, a := range tc["alert_rule_test"].([]map[string]any) {
			tested = append(tested, a["alertname"].(string))
		}
	}
	for _, r := range rules.Groups[0].Rules {
		if !slices.Contains(tested, r.Alert) {
			t.Errorf("alert %s has no promtool test", r.Alert)
		}
	}
}

// promtoolRun runs promtool with args, failing the test with its output
// when it fails.
func promtoolRun(t *testing.T, promtool string, args ...string) {
	t.Helper()
	out, err := exec.Command(promtool, args...).CombinedOutput()
	if err != nil {
		t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// dashboardAsRules writes the dashboard's queries as recording rules (its
// variables given values), so that promtool checks that they parse.
func dashboardAsRules(t *testing.T, dir string, exprs []string) string {
	t.Helper()
	vars := strings.NewReplacer("$__rate_interval", "5m", "$__range", "1d", "$org", ".+")
	var rules []map[string]string
	for i, e := range exprs {
		rules = append(rules, map[string]string{"record": fmt.Sprintf("dashboard:query_%d", i), "expr": vars.Replace(e)})
	}
	out, err := yaml.Marshal(map[string]any{"groups": []map[string]any{{"name": "dashboard", "rules": rules}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "dashboard-rules.yaml")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// alertTests are promtool's tests of each alert: input series taken from
// the daemon's scrapes (their names and labels, their values where they
// say what happened; times relative to the scrape, on promtool's clock
// that starts at 0), and when the alert must not fire yet and must fire.
func alertTests(t *testing.T, rules ruleFile, held, failed, broken scraped) []map[string]any {
	t.Helper()
	rule := map[string]map[string]string{} // alert: labels and annotations, expanded
	for _, r := range rules.Groups[0].Rules {
		rule[r.Alert] = map[string]string{}
		for k, v := range r.Annotations {
			rule[r.Alert]["a:"+k] = v
		}
		for k, v := range r.Labels {
			rule[r.Alert]["l:"+k] = v
		}
	}
	expect := func(alert string, labels map[string]string) map[string]any {
		l, a := map[string]string{}, map[string]string{}
		for k, v := range labels {
			l[k] = v
		}
		for k, v := range rule[alert] {
			name := k[2:]
			if k[0] == 'l' {
				l[name] = v
				continue
			}
			for label, value := range labels {
				v = strings.ReplaceAll(v, "{{ $labels."+label+" }}", value)
			}
			a[name] = v
		}
		return map[string]any{"exp_labels": l, "exp_annotations": a}
	}
	case_ := func(interval string, input []map[string]string, alert string, quiet, fires string, labels map[string]string) map[string]any {
		return map[string]any{"interval": interval, "input_series": input, "alert_rule_test": []map[string]any{
			{"eval_time": quiet, "alertname": alert, "exp_alerts": []any{}},
			{"eval_time": fires, "alertname": alert, "exp_alerts": []any{expect(alert, labels)}},
		}}
	}
	instance := map[string]string{"instance": "orgsync:9090", "job": "orgsync"}
	withOrg := func(org string) map[string]string {
		return map[string]string{"instance": "orgsync:9090", "job": "orgsync", "org": org}
	}

	okSeries, ok := held.series(t, "orgsync_last_run_success")
	_, bad := failed.series(t, "orgsync_last_run_success")
	pendingSeries, created := held.series(t, "orgsync_oldest_pending_approval_timestamp_seconds")
	org := regexp.MustCompile(`org="([^"]*)"`).FindStringSubmatch(pendingSeries)[1]
	limitedSeries, _ := held.series(t, "orgsync_api_rate_limited_total")
	startedSeries, idle := held.series(t, "orgsync_run_started_timestamp_seconds")
	periodSeries, period := held.series(t, "orgsync_schedule_period_seconds")
	durationSeries, lastDuration := held.series(t, "orgsync_last_run_duration_seconds")
	nextSeries, next := held.series(t, "orgsync_next_run_timestamp_seconds")
	lastSeries, last := held.series(t, "orgsync_last_run_timestamp_seconds")
	loadedSeries, loaded := held.series(t, "orgsync_config_loaded")
	_, unloaded := broken.series(t, "orgsync_config_loaded")
	if ok != 1 || bad != 0 || loaded != 1 || unloaded != 0 || idle != 0 || period < 3600 || lastDuration <= 0 {
		t.Fatalf("the scrapes: success %v then %v, loaded %v then %v, idle %v, period %v, duration %v", ok, bad, loaded, unloaded, idle, period, lastDuration)
	}
	secs := func(v float64) string { return fmt.Sprintf("%ds", int(v)) }
	rel := func(v float64) float64 { return v - float64(held.at.Unix()) } // a timestamp on promtool's clock
	series := func(name, values string) map[string]string {
		return map[string]string{"series": name, "values": values}
	}
	return []map[string]any{
		case_("1m", []map[string]string{series(okSeries, fmt.Sprintf("%gx10 %gx30", ok, bad))}, "OrgsyncRunFailing", "13m", "20m", instance),
		case_("10m", []map[string]string{series(pendingSeries, fmt.Sprintf("%g+0x200", rel(created)))}, "OrgsyncApprovalPendingTooLong", "23h", "25h", withOrg(org)),
		case_("1m", []map[string]string{series(limitedSeries, "0x10 0+3x10")}, "OrgsyncRateLimited", "9m", "15m", instance),
		case_("1m", []map[string]string{series(startedSeries, fmt.Sprintf("%gx4 300x400", idle)), series(periodSeries, fmt.Sprintf("%gx404", period)),
			series(durationSeries, fmt.Sprintf("%gx404", lastDuration))}, "OrgsyncRunLongerThanSchedule", secs(300+period/2), secs(300+period+600), instance),
		case_("1m", []map[string]string{series(nextSeries, fmt.Sprintf("%g+0x400", rel(next))), series(lastSeries, fmt.Sprintf("%g+0x400", rel(last))),
			series(periodSeries, fmt.Sprintf("%gx400", period))}, "OrgsyncNotRunningOnSchedule", secs(rel(next)+300), secs(rel(next)+900), instance),
		case_("1m", []map[string]string{series(loadedSeries, fmt.Sprintf("%gx10 %gx30", loaded, unloaded))}, "OrgsyncConfigNotLoading", "15m", "25m", instance),
		case_("1m", []map[string]string{series(lastSeries, "0x30")}, "OrgsyncDaemonAbsent", "10m", "20m", map[string]string{}),
	}
}
