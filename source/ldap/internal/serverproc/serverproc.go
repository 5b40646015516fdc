// Package serverproc runs the throwaway directory servers of the tests and
// the demos (OpenLDAP's slapd, 389 Directory Server's ns-slapd, Samba) as
// child processes: free loopback ports to give them, the server in the
// foreground in its own process group with its output kept, a wait until
// it answers, and a stop that waits for it to exit.
package serverproc

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	ldap3 "github.com/go-ldap/ldap/v3"
)

// Host is the loopback address the servers listen on.
const Host = "127.0.0.1"

// FreePorts returns n distinct loopback TCP ports that were free a moment
// ago. Another program may take one before the server binds it: Retry
// starts the server again on new ports then.
func FreePorts(n int) ([]string, error) {
	var ports []string
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", net.JoinHostPort(Host, "0"))
		if err != nil {
			return nil, err
		}
		held = append(held, l)
		_, port, _ := net.SplitHostPort(l.Addr().String())
		ports = append(ports, port)
	}
	return ports, nil
}

// ErrPortTaken is wrapped by a start that failed because a port given to
// the server was taken in the meantime.
var ErrPortTaken = errors.New("a port given to the server was taken meanwhile")

// Retry calls start with n free ports, again with new ones (up to three
// times in all) while it fails with ErrPortTaken.
func Retry(n int, start func(ports []string) error) error {
	var err error
	for range 3 {
		var ports []string
		if ports, err = FreePorts(n); err != nil {
			return err
		}
		if err = start(ports); !errors.Is(err, ErrPortTaken) {
			return err
		}
	}
	return err
}

// Process is one running server.
type Process struct {
	cmd  *exec.Cmd
	done chan struct{}
	logs logBuffer
}

// Start starts cmd in its own process group, keeping what it writes.
func Start(cmd *exec.Cmd) (*Process, error) {
	p := &Process{cmd: cmd, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &p.logs, &p.logs
	inGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", cmd.Path, err)
	}
	go func() { _ = cmd.Wait(); close(p.done) }()
	return p, nil
}

// Run starts cmd (see Start) and waits until answers succeeds (see
// WaitUp). A server that does not come up is killed, and the error, which
// says what it wrote, wraps ErrPortTaken when it could not listen on a
// port given to it.
func Run(cmd *exec.Cmd, timeout time.Duration, answers func() error) (*Process, error) {
	p, err := Start(cmd)
	if err != nil {
		return nil, err
	}
	if err := p.WaitUp(timeout, answers); err != nil {
		p.Kill()
		if p.PortTaken() {
			return nil, fmt.Errorf("%w: %s", ErrPortTaken, p.Logs())
		}
		return nil, fmt.Errorf("%s did not start: %w\n%s", filepath.Base(cmd.Path), err, p.Logs())
	}
	return p, nil
}

// Binds returns a check for WaitUp: a bind as dn with password to the
// server at url.
func Binds(url, dn, password string) func() error {
	return func() error {
		conn, err := ldap3.DialURL(url)
		if err != nil {
			return err
		}
		defer conn.Close()
		return conn.Bind(dn, password)
	}
}

// WaitUp calls answers until it succeeds, the process exits or timeout
// passes; it returns the last error of answers, or the exit.
func (p *Process) WaitUp(timeout time.Duration, answers func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := answers()
		if err == nil {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited: %v", p.cmd.Path, p.cmd.ProcessState)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return err
		}
	}
}

// Stop asks the server's process group to end (SIGTERM), kills it after
// grace, and waits until the server has exited; stopping twice is fine.
func (p *Process) Stop(grace time.Duration) {
	p.terminate()
	select {
	case <-p.done:
	case <-time.After(grace):
		p.kill()
		<-p.done
	}
}

// Kill ends the server's process group at once and waits until the server
// has exited.
func (p *Process) Kill() {
	p.kill()
	<-p.done
}

// Done is closed when the server has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// PID is the server's process id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Logs returns what the server wrote so far.
func (p *Process) Logs() string { return p.logs.String() }

// PortTaken reports whether the server's output says it could not listen
// on an address in use.
func (p *Process) PortTaken() bool {
	logs := strings.ToLower(p.Logs())
	return strings.Contains(logs, "address already in use") || strings.Contains(logs, "address is in use")
}

// logBuffer is a buffer the server's output goroutines write while the
// caller may read it.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
