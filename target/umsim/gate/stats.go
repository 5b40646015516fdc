package gate

import (
	"maps"
	"net/http"
	"sync"
)

// Pseudo statuses of Stats.Requests for requests that got no HTTP answer.
const (
	// StatusDropped counts connections the gate closed without an answer.
	StatusDropped = 0
	// StatusClientGone counts requests whose client left during the
	// injected latency or while the request was held (a hang).
	StatusClientGone = 499
)

// Stats are the request statistics of a Gate since it started or since
// ResetStats.
type Stats struct {
	// Requests counts answers by endpoint name (the Endpoint constants) and
	// HTTP status (or StatusDropped, StatusClientGone).
	Requests map[string]map[int]int
	// TooManyRequests counts 429 answers.
	TooManyRequests int
	// PeakPerClient is the highest number of requests to endpoints 1-3
	// seen in one window for one access token.
	PeakPerClient int
	// PeakPerApp is the highest number of API requests seen in one window
	// for one API key.
	PeakPerApp int
	// Faults counts injected faults by kind (the Fault constants).
	Faults map[string]int
}

// Total returns the number of answers across all endpoints and statuses.
func (s Stats) Total() int {
	n := 0
	for _, byStatus := range s.Requests {
		for _, c := range byStatus {
			n += c
		}
	}
	return n
}

// Count returns the number of answers of endpoint with status.
func (s Stats) Count(endpoint string, status int) int { return s.Requests[endpoint][status] }

// statsRecorder accumulates Stats under a mutex.
type statsRecorder struct {
	mu sync.Mutex
	s  Stats
}

// newStatsRecorder returns a recorder with empty Stats.
func newStatsRecorder() *statsRecorder {
	r := &statsRecorder{}
	r.reset()
	return r
}

// reset empties the statistics.
func (r *statsRecorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.s = Stats{Requests: map[string]map[int]int{}, Faults: map[string]int{}}
}

// record counts one answer of endpoint with status.
func (r *statsRecorder) record(endpoint string, status int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	byStatus := r.s.Requests[endpoint]
	if byStatus == nil {
		byStatus = map[int]int{}
		r.s.Requests[endpoint] = byStatus
	}
	byStatus[status]++
}

// fault counts an injected fault of kind.
func (r *statsRecorder) fault(kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.s.Faults[kind]++
}

// tooMany counts a 429.
func (r *statsRecorder) tooMany() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.s.TooManyRequests++
}

// peaks raises the peak request counts seen in one window.
func (r *statsRecorder) peaks(perClient, perApp int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.s.PeakPerClient = max(r.s.PeakPerClient, perClient)
	r.s.PeakPerApp = max(r.s.PeakPerApp, perApp)
}

// snapshot returns a deep copy of the statistics.
func (r *statsRecorder) snapshot() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.s
	c.Requests = make(map[string]map[int]int, len(r.s.Requests))
	for ep, byStatus := range r.s.Requests {
		c.Requests[ep] = maps.Clone(byStatus)
	}
	c.Faults = maps.Clone(r.s.Faults)
	return c
}

// statusRecorder is a ResponseWriter that remembers the status written.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

// WriteHeader remembers the first status and passes it on.
func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

// Write remembers an implicit 200 and passes b on.
func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer (Flush,
// Hijack, deadlines).
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// code is the status answered; 200 when the handler wrote nothing.
func (s *statusRecorder) code() int {
	if s.status == 0 {
		return http.StatusOK
	}
	return s.status
}
