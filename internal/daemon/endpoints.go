package daemon

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/orgsync/orgsync/internal/daemon/statuspage"
)

// RunStatus is how the last run ended, as /healthz shows it to a request
// with the status page's credentials.
type RunStatus struct {
	Result string    `json:"result"` // success or failure
	End    time.Time `json:"end"`
	// Error says why the run failed (never a secret: errors carry none).
	Error string `json:"error,omitempty"`
}

// The states of /healthz.
const (
	healthOK      = "ok"      // the last run did not fail (or none ran yet)
	healthFailing = "failing" // the last run failed
)

// Health is the body of /healthz for anyone: ok or failing, and since
// when. The process answers 200 either way: it serves and schedules (a
// restart would not mend a failing source).
type Health struct {
	Status string    `json:"status"`
	Since  time.Time `json:"since"`
}

// HealthDetails is the body of /healthz for a request with the status
// page's credentials: the last run (null before the first) and the next.
type HealthDetails struct {
	Health
	LastRun *RunStatus `json:"lastRun"`
	NextRun time.Time  `json:"nextRun"`
}

// healthState is what /healthz says: failing or not, since when.
type healthState struct {
	failing bool
	since   time.Time
}

// ended moves /healthz to the state of the run that ended (st), which
// started at start.
func (d *daemon) ended(st *RunStatus, start time.Time) {
	d.last.Store(st)
	failing := st.Result == "failure"
	if h := d.health.Load(); h.failing != failing {
		since := st.End
		if failing {
			since = start.UTC()
		}
		d.health.Store(&healthState{failing: failing, since: since})
	}
}

// healthz serves /healthz: ok or failing and since when to anyone; the
// last run's details only to a request with the page's credentials (an
// error may say more than an outsider should read).
func (d *daemon) healthz(w http.ResponseWriter, r *http.Request) {
	h := d.health.Load()
	body := Health{Status: healthOK, Since: h.since}
	if h.failing {
		body.Status = healthFailing
	}
	w.Header().Set("Content-Type", "application/json")
	if _, ok := d.page.Authenticated(r); ok {
		_ = json.NewEncoder(w).Encode(HealthDetails{Health: body, LastRun: d.last.Load(), NextRun: d.nextRun(time.Now()).UTC()})
		return
	}
	_ = json.NewEncoder(w).Encode(body)
}

// mux routes /healthz, /readyz, /metrics and the status page (every
// other path), every response with the security headers.
func (d *daemon) mux() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", d.healthz)
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !d.ready.Load() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	mux.Handle("/metrics", d.metrics.handler())
	mux.Handle("/", d.page)
	return statuspage.Headers(mux)
}
