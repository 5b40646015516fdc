package gate

import (
	"bytes"
	"cmp"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/orgsync/orgsync/target/umwire"
)

// Fault kinds of Stats.Faults.
const (
	FaultError500      = "error500"      // answered 500 without reaching the API handler
	FaultError503      = "error503"      // answered 503 without reaching the API handler
	FaultDrop          = "drop"          // connection closed without reaching the API handler
	FaultAmbiguous500  = "ambiguous500"  // action applied, then answered 500
	FaultAmbiguousDrop = "ambiguousDrop" // action applied, then connection closed
	FaultLatency       = "latency"       // latency added
	FaultHang          = "hang"          // accepted and held unanswered until the client left
	FaultCut           = "cut"           // served, its answer cut in the middle of the body
)

// faultSource draws the fault decisions from a seeded generator.
type faultSource struct {
	mu  sync.Mutex
	f   Faults
	rng *rand.Rand
}

// newFaultSource draws faults f from a generator seeded with f.Seed.
func newFaultSource(f Faults) *faultSource {
	s := &faultSource{}
	s.set(f)
	return s
}

// set replaces the faults and reseeds the generator.
func (s *faultSource) set(f Faults) {
	f.ErrorRate = clamp(f.ErrorRate)
	f.AmbiguousRate = clamp(f.AmbiguousRate)
	f.DropRate = clamp(f.DropRate)
	f.Latency = max(f.Latency, 0)
	f.HangRate = clamp(f.HangRate)
	f.CutRate = clamp(f.CutRate)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.f = f
	s.rng = rand.New(rand.NewPCG(uint64(f.Seed), 0))
}

// clamp limits a rate to [0, 1].
func clamp(v float64) float64 { return min(max(v, 0), 1) }

// latency returns the latency added to every request.
func (s *faultSource) latency() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f.Latency
}

// hangsAll reports whether every request is held unanswered.
func (s *faultSource) hangsAll() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f.HangAll
}

// hangs draws whether an API request is held unanswered. It draws a
// number only when HangRate is set, so that the other decisions of a seed
// stay what they were without it.
func (s *faultSource) hangs() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f.HangAll || (s.f.HangRate > 0 && s.rng.Float64() < s.f.HangRate)
}

// cuts draws whether an API request's answer is cut mid-body; like
// hangs, it draws a number only when CutRate is set.
func (s *faultSource) cuts() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f.CutRate > 0 && s.rng.Float64() < s.f.CutRate
}

// decide draws the fault of one request ("" for none). Every call draws
// the same numbers, so the sequence depends on the seed and the number of
// requests only.
func (s *faultSource) decide(action bool) string {
	s.mu.Lock()
	u, half := s.rng.Float64(), s.rng.IntN(2) == 0
	f := s.f
	s.mu.Unlock()
	pick := func(a, b string) string {
		if half {
			return a
		}
		return b
	}
	switch {
	case u < f.DropRate:
		return FaultDrop
	case u < f.DropRate+f.ErrorRate:
		return pick(FaultError500, FaultError503)
	case action && u < f.DropRate+f.ErrorRate+f.AmbiguousRate:
		return pick(FaultAmbiguous500, FaultAmbiguousDrop)
	}
	return ""
}

// serveWithFaults runs check 7 of the package comment and then the API
// handler, or reports that the connection must be dropped instead.
func (g *Gate) serveWithFaults(w http.ResponseWriter, r *http.Request, ep endpoint) (drop bool) {
	kind := g.faults.decide(ep.name == EndpointAction)
	if kind != "" {
		g.stats.fault(kind)
	}
	switch kind {
	case FaultDrop:
		return true
	case FaultError500:
		serverError(w, r, ep, http.StatusInternalServerError)
	case FaultError503:
		serverError(w, r, ep, http.StatusServiceUnavailable)
	case FaultAmbiguous500, FaultAmbiguousDrop:
		g.next.ServeHTTP(&bufferWriter{header: http.Header{}}, r) // the answer is thrown away
		if kind == FaultAmbiguousDrop {
			return true
		}
		serverError(w, r, ep, http.StatusInternalServerError)
	case "":
		if !g.faults.cuts() {
			g.next.ServeHTTP(w, r)
			return false
		}
		g.stats.fault(FaultCut)
		cutAnswer(w, r, g.next)
		return true
	}
	return false
}

// cutAnswer serves r with next in full and sends the status line, the
// headers (with the whole body's Content-Length) and the first half of
// the body; the caller then closes the connection.
func cutAnswer(w http.ResponseWriter, r *http.Request, next http.Handler) {
	buf := &bufferWriter{header: http.Header{}}
	next.ServeHTTP(buf, r)
	for k, v := range buf.header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Length", strconv.Itoa(buf.body.Len()))
	w.WriteHeader(cmp.Or(buf.status, http.StatusOK))
	_, _ = w.Write(buf.body.Bytes()[:buf.body.Len()/2])
	_ = http.NewResponseController(w).Flush() // the half must leave before the connection closes
}

// bufferWriter is a ResponseWriter that keeps the answer (for a cut
// answer), or whose answer is thrown away (an ambiguous failure).
type bufferWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

// Header returns the answer's headers.
func (b *bufferWriter) Header() http.Header { return b.header }

// Write keeps p.
func (b *bufferWriter) Write(p []byte) (int, error) { return b.body.Write(p) }

// WriteHeader keeps the first status.
func (b *bufferWriter) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

// serverError writes an injected server error.
func serverError(w http.ResponseWriter, r *http.Request, ep endpoint, code int) {
	writeGateError(w, r, ep, code, umwire.ResultError, "simulated server error (fault injection)")
}

// dropConnection closes the client's connection without an answer. Where
// the connection cannot be hijacked (HTTP/2) it aborts the response.
func dropConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close() // the point is to close it; an error changes nothing
}
