package gate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umwire"
)

// outcomes sends n actions and returns each status, 0 for a dropped
// connection.
func (e *env) outcomes(n int, path string) []int {
	e.t.Helper()
	tok := e.token(e.in)
	out := make([]int, n)
	for i := range out {
		resp, err := e.send(e.apiRequest(http.MethodPost, path, tok, e.in.ClientID))
		switch {
		case err == nil:
			out[i] = resp.status
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET):
			out[i] = StatusDropped
		default:
			e.t.Fatalf("request %d: %v, want an answer or EOF", i, err)
		}
	}
	return out
}

func TestFaultsAreDeterministic(t *testing.T) {
	t.Parallel()
	faults := Faults{Seed: 7, ErrorRate: 0.2, DropRate: 0.1, AmbiguousRate: 0.2}
	run := func(f Faults) []int {
		e := newEnv(t, func(c *Config) { c.Faults = f })
		return e.outcomes(100, actionPath)
	}
	first, again := run(faults), run(faults)
	if !slices.Equal(first, again) {
		t.Errorf("same seed, different outcomes:\n%v\n%v", first, again)
	}
	faults.Seed = 8
	if slices.Equal(first, run(faults)) {
		t.Errorf("seeds 7 and 8 gave the same 100 outcomes")
	}
}

func TestFaultRates(t *testing.T) {
	t.Parallel()
	const n = 400
	e := newEnv(t, func(c *Config) {
		c.Faults = Faults{Seed: 1, ErrorRate: 0.2, DropRate: 0.1, AmbiguousRate: 0.25}
	})
	reads := e.outcomes(n, usersPath)
	actions := e.outcomes(n, actionPath)
	st := e.gate.Stats()
	within := func(name string, got int, rate float64) {
		t.Helper()
		want := rate * n
		if tol := 4 * math.Sqrt(n*rate*(1-rate)); math.Abs(float64(got)-want) > tol {
			t.Errorf("%s: %d of %d, want %.0f ± %.0f", name, got, n, want, tol)
		}
	}
	count := func(out []int, status int) int {
		return len(slices.DeleteFunc(slices.Clone(out), func(s int) bool { return s != status }))
	}
	within("read drops", count(reads, StatusDropped), 0.1)
	within("read 5xx", count(reads, 500)+count(reads, 503), 0.2)
	within("action drops", st.Faults[FaultDrop]-count(reads, StatusDropped), 0.1)
	within("action ambiguous", st.Faults[FaultAmbiguous500]+st.Faults[FaultAmbiguousDrop], 0.25)
	if count(reads, 200)+count(reads, 500)+count(reads, 503)+count(reads, StatusDropped) != n {
		t.Errorf("reads: unexpected statuses in %v", reads)
	}
	// Stats agree with what the client saw.
	if st.Count(EndpointUsers, StatusDropped) != count(reads, StatusDropped) ||
		st.Count(EndpointAction, 500) != count(actions, 500) || st.Count(EndpointAction, 503) != count(actions, 503) ||
		st.Count(EndpointAction, StatusDropped) != count(actions, StatusDropped) {
		t.Errorf("stats %v disagree with the client's outcomes", st.Requests)
	}
	// The API handler saw the clean reads and actions plus the ambiguous actions.
	ambiguous := st.Faults[FaultAmbiguous500] + st.Faults[FaultAmbiguousDrop]
	if want := int64(count(reads, 200) + count(actions, 200) + ambiguous); e.calls.Load() != want {
		t.Errorf("API handler called %d times, want %d", e.calls.Load(), want)
	}
}

func TestAmbiguousFailureAppliesTheAction(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.Faults = Faults{Seed: 3, AmbiguousRate: 1} })
	out := e.outcomes(40, actionPath)
	st := e.gate.Stats()
	if e.calls.Load() != 40 || slices.Contains(out, 200) {
		t.Fatalf("handler calls %d, outcomes %v: want 40 calls, none answered 200", e.calls.Load(), out)
	}
	if st.Faults[FaultAmbiguous500] == 0 || st.Faults[FaultAmbiguousDrop] == 0 ||
		st.Faults[FaultAmbiguous500]+st.Faults[FaultAmbiguousDrop] != 40 {
		t.Errorf("fault stats %v: want both ambiguous kinds, 40 in all", st.Faults)
	}
	// Reads are never answered ambiguously.
	if got := e.get(usersPath, e.token(e.in)); got.status != 200 {
		t.Errorf("read with AmbiguousRate 1: %d, want 200", got.status)
	}
}

func TestInjectedErrorBodyAndRequestID(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.Faults = Faults{ErrorRate: 1} })
	req := e.apiRequest(http.MethodGet, usersPath, e.token(e.in), e.in.ClientID)
	req.Header.Set(umwire.HeaderRequestID, "abc")
	resp := e.do(req)
	if resp.status != 500 && resp.status != 503 {
		t.Fatalf("status %d, want 500 or 503", resp.status)
	}
	checkAnswer(t, resp, resp.status, umwire.ResultError, false)
	if resp.header.Get(umwire.HeaderRequestID) != "abc" || e.calls.Load() != 0 {
		t.Errorf("X-Request-Id %q, handler calls %d; want abc, 0", resp.header.Get(umwire.HeaderRequestID), e.calls.Load())
	}
}

func TestSetFaultsAndResetStats(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	tok := e.token(e.in)
	e.gate.SetFaults(Faults{DropRate: 1})
	if _, err := e.send(e.apiRequest(http.MethodGet, usersPath, tok, e.in.ClientID)); err == nil {
		t.Fatal("DropRate 1: got an answer, want a closed connection")
	}
	snapshot := e.gate.Stats()
	e.gate.SetFaults(Faults{DropRate: 7}) // clamped to 1
	_, _ = e.send(e.apiRequest(http.MethodGet, usersPath, tok, e.in.ClientID))
	if snapshot.Faults[FaultDrop] != 1 || e.gate.Stats().Faults[FaultDrop] != 2 {
		t.Errorf("drops: snapshot %d, now %d; want 1 (a copy), 2", snapshot.Faults[FaultDrop], e.gate.Stats().Faults[FaultDrop])
	}
	e.gate.SetFaults(Faults{})
	e.gate.ResetStats()
	if got := e.get(usersPath, tok); got.status != 200 {
		t.Fatalf("faults off: %d, want 200", got.status)
	}
	st := e.gate.Stats()
	if len(st.Faults) != 0 || st.Count(EndpointUsers, 200) != 1 || st.Count(EndpointUsers, StatusDropped) != 0 {
		t.Errorf("after reset: %+v, want one users 200 only", st)
	}
}

func TestLatency(t *testing.T) {
	t.Parallel()
	const latency = 60 * time.Millisecond
	e := newEnv(t, func(c *Config) { c.Faults = Faults{Latency: latency} })
	tok := e.token(e.in)
	start := time.Now()
	if got := e.get(usersPath, tok); got.status != 200 {
		t.Fatalf("status %d, want 200", got.status)
	}
	if took := time.Since(start); took < latency {
		t.Errorf("request took %v, want at least %v", took, latency)
	}
	// A client that leaves during the latency is counted as gone.
	e.gate.SetFaults(Faults{Latency: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := e.send(e.apiRequest(http.MethodGet, usersPath, tok, e.in.ClientID).WithContext(ctx)); err == nil {
		t.Fatal("want the client's deadline to end the request")
	}
	deadline := time.Now().Add(5 * time.Second)
	for e.gate.Stats().Count(EndpointUsers, StatusClientGone) != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("stats %v: the gone client was not counted", e.gate.Stats().Requests)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if st := e.gate.Stats(); st.Faults[FaultLatency] != 2 || e.calls.Load() != 1 {
		t.Errorf("latency faults %d, handler calls %d; want 2, 1", st.Faults[FaultLatency], e.calls.Load())
	}
}

// sendWithin sends req with a client that gives up after d; it reports
// whether an answer came.
func (e *env) sendWithin(req *http.Request, d time.Duration) bool {
	e.t.Helper()
	answered, err := e.tryWithin(req, d)
	if err != nil {
		e.t.Fatal(err)
	}
	return answered
}

// tryWithin is sendWithin that returns an error other than no answer.
func (e *env) tryWithin(req *http.Request, d time.Duration) (bool, error) {
	ctx, cancel := context.WithTimeout(req.Context(), d)
	defer cancel()
	_, err := e.send(req.WithContext(ctx))
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return false, fmt.Errorf("%s: %v, want an answer or none", req.URL.Path, err)
	}
	return err == nil, nil
}

// HangRate holds about that fraction of API requests unanswered until the
// client gives up, and counts them; the token endpoints still answer.
func TestHangRate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.Faults = Faults{Seed: 3, HangRate: 0.5} })
	tok := e.token(e.in)
	const n = 40
	// All at once, each given a second: a request passed on is answered
	// within it on a loaded machine, and the held ones are not waited for
	// one after the other.
	errs := make(chan error, n)
	for range n {
		req := e.apiRequest(http.MethodGet, usersPath, tok, e.in.ClientID)
		go func() { _, err := e.tryWithin(req, time.Second); errs <- err }()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	held := e.gate.Stats().Faults[FaultHang]
	if held < n/4 || held > 3*n/4 || int(e.calls.Load())+held != n {
		t.Errorf("%d of %d held, %d passed on; want about half held and the others passed on", held, n, e.calls.Load())
	}
	waitFor(t, func() bool { return e.gate.Stats().Count(EndpointUsers, StatusClientGone) == held })
}

// HangAll holds every request, the token endpoints' too, and a held
// request ends when its client leaves.
func TestHangAll(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.Faults = Faults{HangAll: true} })
	req, err := http.NewRequest(http.MethodPost, e.srv.URL+umwire.PathClientCredentials, strings.NewReader("client_id=x"))
	if err != nil {
		t.Fatal(err)
	}
	if e.sendWithin(req, 200*time.Millisecond) || e.sendWithin(e.apiRequest(http.MethodGet, usersPath, "t", e.in.ClientID), 200*time.Millisecond) {
		t.Fatal("a request was answered")
	}
	waitFor(t, func() bool {
		st := e.gate.Stats()
		return st.Faults[FaultHang] == 2 && st.Count(EndpointToken, StatusClientGone) == 1 && st.Count(EndpointUsers, StatusClientGone) == 1
	})
	if e.calls.Load() != 0 {
		t.Errorf("the API handler was called %d times", e.calls.Load())
	}
}

// waitFor waits up to 2 s for cond.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 2s")
		}
	}
}

// CutRate serves the request (the handler runs) and cuts its answer in
// the middle of the body: the status and the first half arrive, then the
// connection closes.
func TestCutRate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.Faults = Faults{Seed: 3, CutRate: 1} })
	resp, err := e.send(e.apiRequest(http.MethodGet, usersPath, e.token(e.in), e.in.ClientID))
	if !errors.Is(err, io.ErrUnexpectedEOF) || resp.status != 200 || resp.body != `{"ok"` {
		t.Fatalf("status %d body %q error %v: want 200, half the body, then unexpected EOF", resp.status, resp.body, err)
	}
	if e.calls.Load() != 1 || e.gate.Stats().Faults[FaultCut] != 1 || e.gate.Stats().Count(EndpointUsers, StatusDropped) != 1 {
		t.Errorf("handler calls %d, stats %+v: want 1 call, 1 cut, 1 dropped", e.calls.Load(), e.gate.Stats())
	}
	e = newEnv(t, func(c *Config) { c.Faults = Faults{Seed: 3, CutRate: 0.5} })
	const n = 40
	out := e.outcomes(n, actionPath)
	cut := e.gate.Stats().Faults[FaultCut]
	if cut < n/4 || cut > 3*n/4 || e.calls.Load() != n || cut+countOf(out, 200) != n {
		t.Errorf("%d of %d cut, %d handler calls, outcomes %v: want about half cut, every request served", cut, n, e.calls.Load(), out)
	}
}

// countOf counts v in xs.
func countOf(xs []int, v int) int {
	n := 0
	for _, x := range xs {
		if x == v {
			n++
		}
	}
	return n
}
