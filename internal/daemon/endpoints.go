package daemon

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/util/listenaddr"
)

// RunStatus is how the last run ended, as /healthz shows it.
type RunStatus struct {
	Result string    `json:"result"` // success or failure
	End    time.Time `json:"end"`
	// Error says why the run failed (never a secret: errors carry none).
	Error string `json:"error,omitempty"`
}

// Health is the body of /healthz.
type Health struct {
	Status  string     `json:"status"` // always "ok": the process is serving and scheduling
	LastRun *RunStatus `json:"lastRun"`
	NextRun time.Time  `json:"nextRun"`
}

// serve starts serving the endpoints on d.listen.
func (d *daemon) serve() (*http.Server, error) {
	ln, err := net.Listen("tcp", d.listen)
	if err != nil {
		return nil, listenaddr.Explain("/healthz, /readyz and /metrics", d.listen, "schedule.listen (or --listen)", err)
	}
	srv := &http.Server{Handler: d.mux(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	d.log.Info("daemon started", zap.String("schedule", d.schedule.Cron), zap.String("timezone", d.zone()),
		zap.String("listen", ln.Addr().String()))
	return srv, nil
}

// mux routes /healthz, /readyz, /metrics and the status page (every
// other path).
func (d *daemon) mux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(Health{Status: "ok", LastRun: d.last.Load(), NextRun: d.nextRun(time.Now()).UTC()})
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !d.ready.Load() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	mux.Handle("/metrics", d.metrics.handler())
	mux.Handle("/", d.page())
	return mux
}
