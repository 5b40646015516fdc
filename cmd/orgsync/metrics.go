package main

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the daemon's Prometheus metrics, in a registry of their own.
type metrics struct {
	reg         *prometheus.Registry
	runs        *prometheus.CounterVec
	lastSuccess prometheus.Gauge
	// lastRun and lastResult have no labels; as vectors they are only
	// exported once a run has ended, so that no alert fires before.
	lastRun     *prometheus.GaugeVec
	lastResult  *prometheus.GaugeVec
	changes     *prometheus.CounterVec
	requests    *prometheus.CounterVec
	rateLimited prometheus.Counter
	duration    prometheus.Histogram
}

// newMetrics registers the daemon's metrics with Go and process metrics.
func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "orgsync_runs_total", Help: "Sync runs by result (success, failure, skipped).",
		}, []string{"result"}),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "orgsync_last_success_timestamp_seconds", Help: "Unix time the last successful run ended.",
		}),
		lastRun: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "orgsync_last_run_timestamp_seconds", Help: "Unix time the last run ended, successful or not (absent before the first run).",
		}, nil),
		lastResult: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "orgsync_last_run_success", Help: "1 when the last run succeeded, 0 when it failed (absent before the first run).",
		}, nil),
		changes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "orgsync_changes_total", Help: "Changes applied, by kind.",
		}, []string{"kind"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "orgsync_api_requests_total", Help: "Requests sent to the service, by HTTP status (0: no answer).",
		}, []string{"status"}),
		rateLimited: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "orgsync_api_rate_limited_total", Help: "429 answers of the service.",
		}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "orgsync_run_duration_seconds", Help: "Duration of sync runs.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 16),
		}),
	}
	m.reg.MustRegister(m.runs, m.lastSuccess, m.lastRun, m.lastResult, m.changes, m.requests, m.rateLimited, m.duration,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// observe records one finished run.
func (m *metrics) observe(rep *runReport, err error, end time.Time) {
	if rep != nil {
		m.duration.Observe(rep.elapsed.Seconds())
		for kind, n := range rep.applied {
			m.changes.WithLabelValues(kind).Add(float64(n))
		}
		for _, byStatus := range rep.stats.Requests {
			for status, n := range byStatus {
				m.requests.WithLabelValues(strconv.Itoa(status)).Add(float64(n))
			}
		}
		m.rateLimited.Add(float64(rep.stats.TooManyRequests))
	}
	m.lastRun.WithLabelValues().Set(float64(end.Unix()))
	if err != nil {
		m.runs.WithLabelValues("failure").Inc()
		m.lastResult.WithLabelValues().Set(0)
		return
	}
	m.runs.WithLabelValues("success").Inc()
	m.lastResult.WithLabelValues().Set(1)
	m.lastSuccess.Set(float64(end.Unix()))
}

// handler serves the registry at /metrics.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}
