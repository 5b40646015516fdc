// Package netns gives a throwaway server that listens on fixed ports
// (Samba's domain controller: LDAP on 389, LDAPS on 636, Kerberos on 88)
// a network namespace of its own, with its loopback interface up, and
// forwards free loopback ports of the machine to those ports inside it:
// several such servers run side by side, and beside a directory server of
// the machine that holds the same ports. It needs Linux and root (CAP_SYS_ADMIN); elsewhere New
// says so.
//
// The namespace is held by one goroutine locked to its OS thread, which
// starts the server's processes and opens the sockets into the namespace;
// the thread ends with the namespace, and a process started there with
// SysProcAttr.Pdeathsig set is sent that signal then, even if the program
// dies without stopping it.
package netns

import (
	"errors"
	"io"
	"net"
	"runtime"
	"sync"
)

// Host is the machine's loopback address the forwarded ports listen on.
const Host = "127.0.0.1"

// Namespace is one network namespace.
type Namespace struct {
	do   chan func()
	quit chan struct{} // closed by Close
	done chan struct{} // closed when the namespace's thread ends
	mu   sync.Mutex
	// closers are the forwarding listeners and connections, closed with
	// the namespace.
	closers map[io.Closer]bool
}

// New makes a network namespace with its loopback interface up.
func New() (*Namespace, error) {
	n := &Namespace{do: make(chan func()), quit: make(chan struct{}), done: make(chan struct{}), closers: map[io.Closer]bool{}}
	ready := make(chan error)
	go n.hold(ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	return n, nil
}

// hold moves its thread into a new network namespace and runs what Do is
// given there until Close. The thread is never unlocked, so no other
// goroutine runs in the namespace and the thread ends with hold.
func (n *Namespace) hold(ready chan<- error) {
	runtime.LockOSThread()
	defer close(n.done)
	if err := enter(); err != nil {
		ready <- err
		return
	}
	ready <- nil
	for {
		select {
		case f := <-n.do:
			f()
		case <-n.quit:
			return
		}
	}
}

// Do runs f in the namespace and waits for it: the processes f starts run
// there, and the sockets it opens belong to it. After Close it runs
// nothing and returns false.
func (n *Namespace) Do(f func()) bool {
	finished := make(chan struct{})
	select {
	case n.do <- func() { defer close(finished); f() }:
		<-finished
		return true
	case <-n.done:
		return false
	}
}

// errClosed is the error of Dial after Close.
var errClosed = errors.New("the network namespace is closed")

// Dial connects to port of the namespace's loopback.
func (n *Namespace) Dial(port string) (net.Conn, error) {
	var conn net.Conn
	err := errClosed
	n.Do(func() { conn, err = net.Dial("tcp", net.JoinHostPort("127.0.0.1", port)) })
	return conn, err
}

// Forward listens on a free port of the machine's loopback and forwards
// each connection to port of the namespace's loopback, until Close. It
// returns the address it listens on.
func (n *Namespace) Forward(port string) (string, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(Host, "0"))
	if err != nil {
		return "", err
	}
	n.track(l)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go n.pipe(c, port)
		}
	}()
	return l.Addr().String(), nil
}

// pipe copies between c and a connection to port in the namespace until
// either side closes.
func (n *Namespace) pipe(c net.Conn, port string) {
	defer n.untrack(c)
	n.track(c)
	inside, err := n.Dial(port)
	if err != nil {
		return
	}
	defer n.untrack(inside)
	n.track(inside)
	copied := make(chan struct{}, 2)
	for _, p := range [][2]net.Conn{{inside, c}, {c, inside}} {
		go func() {
			_, _ = io.Copy(p[0], p[1])
			if tc, ok := p[0].(*net.TCPConn); ok {
				_ = tc.CloseWrite()
			}
			copied <- struct{}{}
		}()
	}
	<-copied
	<-copied
}

func (n *Namespace) track(c io.Closer) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closers == nil {
		c.Close()
		return
	}
	n.closers[c] = true
}

func (n *Namespace) untrack(c io.Closer) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closers != nil {
		delete(n.closers, c)
	}
	c.Close()
}

// Close stops forwarding and ends the namespace's thread; processes
// started in it with a Pdeathsig are sent that signal. Stop them first.
func (n *Namespace) Close() {
	n.mu.Lock()
	for c := range n.closers {
		c.Close()
	}
	n.closers = nil
	n.mu.Unlock()
	close(n.quit)
	<-n.done
}
