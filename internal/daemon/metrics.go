package daemon

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/store"
)

// metrics are the daemon's Prometheus metrics, all in one registry of
// their own: the run's, summed over its organizations, each
// organization's (orgsync_org_*, with an org label), the approvals and the
// configuration's.
type metrics struct {
	reg *prometheus.Registry
	run metricSet // the whole run's
	org metricSet // each organization's, the org label first
	// lastRun and lastResult have no labels; as vectors they are only
	// exported once a run has ended, so that no alert fires before.
	lastRun    *prometheus.GaugeVec
	lastResult *prometheus.GaugeVec
	// panics counts runs that ended in a panic (a bug) the daemon
	// recovered from; each also counts as a failed run.
	panics prometheus.Counter
	// pending counts each organization's approvals waiting for a
	// decision; loaded and reloads say whether the configuration file
	// loads.
	pending *prometheus.GaugeVec
	loaded  prometheus.Gauge
	reloads *prometheus.CounterVec
	// oldestPending is when each organization's oldest pending approval
	// was held (absent for an organization with none).
	oldestPending *prometheus.GaugeVec
	// runStarted is when the run in progress started (0: none);
	// lastDuration how long the last run took (absent before the first).
	runStarted   prometheus.Gauge
	lastDuration *prometheus.GaugeVec
	// decisions counts the decisions taken on the status page, by action
	// (review, approve, reject) and result (success, failure): a
	// rejection is no run, and is counted here only.
	decisions *prometheus.CounterVec
}

// metricSet is one family of the daemon's metrics.
type metricSet struct {
	runs        *prometheus.CounterVec
	lastSuccess *prometheus.GaugeVec
	changes     *prometheus.CounterVec
	requests    *prometheus.CounterVec
	rateLimited *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	reads       *prometheus.CounterVec
}

// newMetrics registers every metric of the daemon with Go and process
// metrics.
func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	r, o := &m.run, &m.org
	r.runs, o.runs = counters("runs_total", "Sync runs by result (success; held: applied what was safe, a safety limit held the rest for approval; failure; skipped)", "result")
	r.lastSuccess, o.lastSuccess = gauges("last_success_timestamp_seconds", "Unix time the last run that did not fail (success or held) ended")
	r.changes, o.changes = counters("changes_total", "Changes applied, by kind", "kind")
	r.requests, o.requests = counters("api_requests_total", "Requests sent to the service, by HTTP status (0: no answer)", "status")
	r.rateLimited, o.rateLimited = counters("api_rate_limited_total", "429 answers of the service")
	r.duration, o.duration = histograms("run_duration_seconds", "Duration of sync runs")
	r.reads, o.reads = counters("reads_total", "Organizations read, by kind (full, or incremental: planned from the organization's snapshot)", "kind")
	for _, set := range []*metricSet{r, o} {
		m.reg.MustRegister(set.runs, set.lastSuccess, set.changes, set.requests, set.rateLimited, set.duration, set.reads)
	}
	m.lastRun = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "orgsync_last_run_timestamp_seconds", Help: "Unix time the last run ended, successful or not (absent before the first run).",
	}, nil)
	m.lastResult = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "orgsync_last_run_success", Help: "1 when the last run succeeded, 0 when it failed (absent before the first run).",
	}, nil)
	m.panics = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "orgsync_run_panics_total", Help: "Runs that ended in a panic (a bug in orgsync) the daemon recovered from.",
	})
	m.pending = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "orgsync_pending_approvals",
		Help: "Approvals waiting for orgsync approve or reject, by organization."}, []string{"org"})
	m.loaded = prometheus.NewGauge(prometheus.GaugeOpts{Name: "orgsync_config_loaded",
		Help: "1 when the configuration file loaded at the last attempt, 0 while the last good one is used instead."})
	m.reloads = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "orgsync_config_reloads_total",
		Help: "Attempts to read the configuration again, by result (success, failure)."}, []string{"result"})
	m.oldestPending = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "orgsync_oldest_pending_approval_timestamp_seconds",
		Help: "Unix time the oldest approval still pending was held, by organization (absent when none is pending)."}, []string{"org"})
	m.runStarted = prometheus.NewGauge(prometheus.GaugeOpts{Name: "orgsync_run_started_timestamp_seconds",
		Help: "Unix time the run in progress (a scheduled run or a decision of the status page) started; 0 when none is in progress."})
	m.lastDuration = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "orgsync_last_run_duration_seconds",
		Help: "How long the last run took, its longest organization's (absent before the first run)."}, nil)
	m.decisions = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "orgsync_page_decisions_total",
		Help: "Decisions taken on the status page, by action (review, approve, reject) and result (success, failure)."}, []string{"action", "result"})
	m.reg.MustRegister(m.lastRun, m.lastResult, m.panics, m.pending, m.loaded, m.reloads, m.oldestPending, m.runStarted, m.lastDuration, m.decisions,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// counters returns the run's counter orgsync_<name> with the labels and
// the organizations' orgsync_org_<name> with an org label first.
func counters(name, help string, labels ...string) (run, org *prometheus.CounterVec) {
	run = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "orgsync_" + name, Help: help + "."}, labels)
	org = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "orgsync_org_" + name, Help: help + ", by organization."},
		append([]string{"org"}, labels...))
	return run, org
}

// gauges is counters for a gauge without labels of its own.
func gauges(name, help string) (run, org *prometheus.GaugeVec) {
	run = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "orgsync_" + name, Help: help + "."}, nil)
	org = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "orgsync_org_" + name, Help: help + ", by organization."}, []string{"org"})
	return run, org
}

// histograms is counters for a histogram of durations.
func histograms(name, help string) (run, org *prometheus.HistogramVec) {
	buckets := prometheus.ExponentialBuckets(1, 2, 16)
	run = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "orgsync_" + name, Help: help + ".", Buckets: buckets}, nil)
	org = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "orgsync_org_" + name, Help: help + ", by organization.", Buckets: buckets},
		[]string{"org"})
	return run, org
}

// skipped records a run that did not start because the last still runs.
func (m *metrics) skipped(orgs []string) {
	m.run.runs.WithLabelValues("skipped").Inc()
	for _, o := range orgs {
		m.org.runs.WithLabelValues(o, "skipped").Inc()
	}
}

// observe records one finished run: each organization's report, and err,
// what failed the run (nil when every organization succeeded).
func (m *metrics) observe(reps []*run.Result, err error, end time.Time) {
	m.idle()
	var longest time.Duration
	held := false
	for _, rep := range reps {
		m.observeOrg(rep, end)
		longest = max(longest, rep.Elapsed)
		held = held || orgResult(rep) == store.RunHeld
	}
	if len(reps) > 0 {
		m.run.duration.WithLabelValues().Observe(longest.Seconds())
		m.lastDuration.WithLabelValues().Set(longest.Seconds())
	}
	m.lastRun.WithLabelValues().Set(float64(end.Unix()))
	if err != nil {
		m.run.runs.WithLabelValues(store.RunFailure).Inc()
		m.lastResult.WithLabelValues().Set(0)
		return
	}
	if held {
		m.run.runs.WithLabelValues(store.RunHeld).Inc()
	} else {
		m.run.runs.WithLabelValues(store.RunSuccess).Inc()
	}
	m.lastResult.WithLabelValues().Set(1)
	m.run.lastSuccess.WithLabelValues().Set(float64(end.Unix()))
}

// observeOrg records one organization's part of a run, in its own series
// and in the run's.
func (m *metrics) observeOrg(rep *run.Result, end time.Time) {
	org := rep.Org.Name
	m.org.duration.WithLabelValues(org).Observe(rep.Elapsed.Seconds())
	for kind, n := range rep.ByKind {
		m.run.changes.WithLabelValues(kind).Add(float64(n))
		m.org.changes.WithLabelValues(org, kind).Add(float64(n))
	}
	for _, byStatus := range rep.Stats.Requests {
		for status, n := range byStatus {
			m.run.requests.WithLabelValues(strconv.Itoa(status)).Add(float64(n))
			m.org.requests.WithLabelValues(org, strconv.Itoa(status)).Add(float64(n))
		}
	}
	m.run.rateLimited.WithLabelValues().Add(float64(rep.Stats.TooManyRequests))
	m.org.rateLimited.WithLabelValues(org).Add(float64(rep.Stats.TooManyRequests))
	if kind := string(rep.Read.Kind); kind != "" {
		m.run.reads.WithLabelValues(kind).Inc()
		m.org.reads.WithLabelValues(org, kind).Inc()
	}
	result := orgResult(rep)
	m.org.runs.WithLabelValues(org, result).Inc()
	if result != store.RunFailure {
		m.org.lastSuccess.WithLabelValues(org).Set(float64(end.Unix()))
	}
}

// orgResult is how an organization's run ended: failure, held (a safety
// limit holds some of its changes for approval) or success.
func orgResult(rep *run.Result) string {
	switch {
	case rep.Err != nil:
		return store.RunFailure
	case len(rep.Decision.Pending) > 0:
		return store.RunHeld
	}
	return store.RunSuccess
}

// started records that a run starts now, and returns now.
func (m *metrics) started() time.Time {
	now := time.Now()
	m.runStarted.Set(float64(now.UnixNano()) / 1e9)
	return now
}

// idle records that no run is in progress.
func (m *metrics) idle() { m.runStarted.Set(0) }

// schedule exports the schedule's period (the shortest time between two
// of its runs) and, at each scrape, when the next run is due.
func (m *metrics) schedule(period time.Duration, next func() time.Time) {
	p := prometheus.NewGauge(prometheus.GaugeOpts{Name: "orgsync_schedule_period_seconds",
		Help: "The shortest time between two scheduled runs: a run longer than this overlaps the next, which is skipped."})
	p.Set(period.Seconds())
	m.reg.MustRegister(p, prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "orgsync_next_run_timestamp_seconds",
		Help: "Unix time the next scheduled run is due."}, func() float64 { return float64(next().Unix()) }))
}

// pendingSince sets when each organization's oldest pending approval was
// held (pending is oldest first), and clears it for those of orgs with
// none.
func (m *metrics) pendingSince(orgs []string, pending []store.Approval) {
	oldest := map[string]time.Time{}
	for i := range pending {
		if _, ok := oldest[pending[i].Org]; !ok {
			oldest[pending[i].Org] = pending[i].Created
		}
	}
	for _, o := range orgs {
		if t, ok := oldest[o]; ok {
			m.oldestPending.WithLabelValues(o).Set(float64(t.Unix()))
		} else {
			m.oldestPending.DeleteLabelValues(o)
		}
	}
}

// handler serves the registry at /metrics.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}
