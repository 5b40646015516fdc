// Package listenaddr says why a server of orgsync (the daemon's endpoints,
// the simulator) cannot listen on an address, and what to do, in words a
// user acts on instead of Go's "listen tcp ...: bind: ..." text.
package listenaddr

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

// Explain returns the error of a failed net.Listen on addr for what is
// served there ("/healthz, /readyz and /metrics"), naming key, where the
// address is set ("--listen").
func Explain(what, addr, key string, err error) error {
	var dns *net.DNSError
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Errorf("cannot serve %s on %s: another program (perhaps another orgsync) uses that address; stop it, or set %s to a free address", what, addr, key)
	case errors.Is(err, syscall.EACCES):
		return fmt.Errorf("cannot serve %s on %s: this user may not listen on that port (ports below 1024 need privileges); set %s to a port above 1023", what, addr, key)
	case errors.As(err, &dns), errors.Is(err, syscall.EADDRNOTAVAIL):
		return fmt.Errorf("cannot serve %s on %s: no network interface of this host has that address; set %s to host:port of this host (\":9090\" for every interface)", what, addr, key)
	}
	return fmt.Errorf("cannot serve %s on %s: %w; check %s (host:port, e.g. \"127.0.0.1:9090\")", what, addr, withoutOp(err), key)
}

// withoutOp returns the cause of a *net.OpError, which repeats the
// operation and the address.
func withoutOp(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) {
		return oe.Err
	}
	return err
}
