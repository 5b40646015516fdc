//go:build unix

package daemon

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
)

// fdBudgetHelper is set in the environment of the process
// TestHealthzAnswersThroughAConnectionFlood starts.
const fdBudgetHelper = "ORGSYNC_TEST_FD_BUDGET_DAEMON"

// TestFDBudgetDaemon is not a test: run by
// TestHealthzAnswersThroughAConnectionFlood in a process of its own, it
// limits itself to 128 file descriptors, serves a daemon's endpoints as
// the daemon does, prints their address and serves until its standard
// input closes.
func TestFDBudgetDaemon(t *testing.T) {
	t.Parallel()
	if os.Getenv(fdBudgetHelper) == "" {
		t.Skip("run by TestHealthzAnswersThroughAConnectionFlood")
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 128, Max: 128}); err != nil {
		t.Fatal(err)
	}
	d := newTestDaemon(t, setupOf(t, example(t, ""), zap.NewNop()))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := d.serveOn(ln, serverTimeouts, connectionBudget())
	fmt.Printf("listening %s budget %d\n", ln.Addr(), connectionBudget())
	_, _ = io.Copy(io.Discard, os.Stdin)
	_ = srv.Close()
}

// endlessForm is the start of a decision's form whose body never comes.
const endlessForm = "POST /approvals/0123abcd/reject HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
	"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\ncsrf="

// TestHealthzAnswersThroughAConnectionFlood: a daemon with 128 file
// descriptors holds 300 connections open against it (idle, sending their
// header a byte at a time, trickling a form, idle after a request):
// /healthz keeps answering 200, quickly, and the process never runs out
// of descriptors.
func TestHealthzAnswersThroughAConnectionFlood(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFDBudgetDaemon$", "-test.v")
	cmd.Env = append(os.Environ(), fdBudgetHelper+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	lines := bufio.NewScanner(stdout)
	var addr string
	var budget int
	for lines.Scan() {
		if _, err := fmt.Sscanf(lines.Text(), "listening %s budget %d", &addr, &budget); err == nil {
			break
		}
	}
	if addr == "" || budget >= 128 {
		t.Fatalf("the helper did not start (%q, budget %d): %s", addr, budget, stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := range 200 {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
		switch i % 4 {
		case 1:
			fmt.Fprint(c, "GET /healthz HTTP/1.1\r\nHo")
		case 2:
			fmt.Fprint(c, endlessForm)
		case 3:
			fmt.Fprint(c, "GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
		}
	}
	// then forms that never end, each in the page's hands before the next
	// comes (the page is open, as by default: anyone can send one)
	for i := range 100 {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			t.Fatalf("form %d: %v", i, err)
		}
		conns = append(conns, c)
		fmt.Fprint(c, endlessForm)
		time.Sleep(2 * time.Millisecond)
	}
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for i := range 20 {
		start := time.Now()
		resp, err := client.Get("http://" + addr + "/healthz")
		if err != nil {
			t.Fatalf("/healthz %d with 300 connections held: %v\n%s", i, err, stderr.String())
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || time.Since(start) > time.Second {
			t.Errorf("/healthz %d: %d in %s", i, resp.StatusCode, time.Since(start))
		}
		// the flood goes on: one more idle connection each time
		if c, err := net.Dial("tcp", addr); err == nil {
			conns = append(conns, c)
		}
	}
	if strings.Contains(stderr.String(), "too many open files") {
		t.Errorf("the daemon ran out of file descriptors:\n%s", stderr.String())
	}
}
