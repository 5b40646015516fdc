package daemon

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// serveTest serves the endpoints of a daemon of the CSV example (extra
// appended to its configuration) on a loopback listener of its own with
// timeouts t and at most maxConns connections; it returns the daemon, its
// base URL and its logs.
func serveTest(t *testing.T, extra string, tm timeouts, maxConns int) (*daemon, string, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zap.InfoLevel)
	d := newTestDaemon(t, setupOf(t, example(t, extra), zap.New(core)))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := d.serveOn(ln, tm, maxConns)
	t.Cleanup(func() { _ = srv.Close() })
	return d, "http://" + ln.Addr().String(), logs
}

// TestEndpointsForbidFraming: /healthz, /readyz, /metrics and the page
// all answer with the headers that forbid framing and sniffing.
func TestEndpointsForbidFraming(t *testing.T) {
	t.Parallel()
	_, base, _ := serveTest(t, "", serverTimeouts, 16)
	for _, path := range []string{"/healthz", "/readyz", "/metrics", "/", "/api/runs", "/nothing"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		h := resp.Header
		if h.Get("X-Frame-Options") != "DENY" || !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") ||
			h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("%s: %v", path, h)
		}
	}
}

// TestServerCutsSlowAndIdleConnections: an idle keep-alive connection is
// closed after the idle timeout, a request whose body trickles after the
// read timeout, a header or a body larger than its cap is refused.
func TestServerCutsSlowAndIdleConnections(t *testing.T) {
	t.Parallel()
	tm := timeouts{header: 300 * time.Millisecond, read: 500 * time.Millisecond, write: time.Second, idle: 300 * time.Millisecond}
	_, base, _ := serveTest(t, "", tm, 16)
	addr := strings.TrimPrefix(base, "http://")

	idle := dial(t, addr)
	fmt.Fprintf(idle, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	r := bufio.NewReader(idle)
	if resp, err := http.ReadResponse(r, nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/healthz: %v %v", resp, err)
	} else {
		_, _ = io.Copy(io.Discard, resp.Body)
	}
	if took := closedWithin(t, idle, r, 3*time.Second); took < 200*time.Millisecond {
		t.Errorf("the idle connection was closed after %s, before the idle timeout", took)
	}

	trickle := dial(t, addr)
	fmt.Fprintf(trickle, "POST /approvals/0123abcd/approve HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ncsrf=")
	stop := make(chan struct{})
	defer close(stop)
	go func() { // one byte every 100 ms, for ever
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
				if _, err := trickle.Write([]byte("a")); err != nil {
					return
				}
			}
		}
	}()
	closedWithin(t, trickle, bufio.NewReader(trickle), 3*time.Second)

	resp, err := http.Post(base+"/approvals/0123abcd/reject", "application/x-www-form-urlencoded", strings.NewReader(strings.Repeat("a", maxBodyBytes+1)))
	if err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge || resp.Header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("a body of %d bytes: %v %v, want 413 with the security headers", maxBodyBytes+1, resp, err)
	} else {
		resp.Body.Close()
	}
	big, err := http.NewRequest(http.MethodGet, base+"/healthz", nil)
	if err != nil {
		t.Fatal(err)
	}
	big.Header.Set("X-Big", strings.Repeat("a", 2*maxHeaderBytes))
	if resp, err := http.DefaultClient.Do(big); err != nil || resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("a header of %d bytes: %v %v, want 431", 2*maxHeaderBytes, resp, err)
	}
}

// TestServerErrorsAreWarningsOfTheDaemonsLog: the server's own errors (an
// accept that failed, as when the process is out of descriptors) reach
// the daemon's log as warnings, so logging.file at level warn keeps them.
func TestServerErrorsAreWarningsOfTheDaemonsLog(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zap.WarnLevel)
	d := newTestDaemon(t, setupOf(t, example(t, ""), zap.New(core)))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	failing := &failingListener{Listener: ln}
	failing.fail.Store(true)
	srv := d.serveOn(failing, serverTimeouts, 16)
	t.Cleanup(func() { _ = srv.Close() })
	resp, err := http.Get("http://" + ln.Addr().String() + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	entries := logs.FilterLoggerName("http").FilterMessageSnippet("accept4: too many open files").All()
	if len(entries) == 0 || entries[0].Level != zap.WarnLevel {
		t.Errorf("the server's accept error in the daemon's log: %v", entries)
	}
}

// failingListener fails its first Accept as a process out of descriptors
// does (a temporary error, which the server retries).
type failingListener struct {
	net.Listener
	fail atomic.Bool
}

func (l *failingListener) Accept() (net.Conn, error) {
	if l.fail.CompareAndSwap(true, false) {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// dial connects to addr, closed when the test ends.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedWithin waits until the server closes c (a read ends), failing the
// test after limit; it returns how long that took.
func closedWithin(t *testing.T, c net.Conn, r *bufio.Reader, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	_ = c.SetReadDeadline(start.Add(limit))
	_, _ = io.Copy(io.Discard, r)
	took := time.Since(start)
	if took >= limit {
		t.Errorf("the server still holds the connection after %s", limit)
	}
	return took
}
