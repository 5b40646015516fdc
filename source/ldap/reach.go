package ldap

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"

	ldap3 "github.com/go-ldap/ldap/v3"
)

// unreachableError is a server URL that cannot be used: its host name
// does not resolve, it refused the connection, or it gave no answer in
// time. It says so in one line with the key to check, without the
// network library's text (Unwrap keeps it for errors.Is).
type unreachableError struct {
	advice string
	err    error
}

func (e *unreachableError) Error() string { return e.advice }
func (e *unreachableError) Unwrap() error { return e.err }

// reach says what to check for a server the source could not use.
type reach struct {
	url, key   string        // the URL and its key (sources[0].ldap.urls[1])
	timeoutKey string        // the key of the timeout that governs connect and bind
	timeout    time.Duration // its value
}

// classify returns err explained when it says the server cannot be
// reached or did not answer (accepted is whether the connection was
// made: then only the connection's own failures count), or nil for any
// other error (a refused bind, a certificate, a KDC).
func (r reach) classify(err error, accepted bool) error {
	if accepted && !ldap3.IsErrorWithCode(err, ldap3.ErrorNetwork) {
		return nil
	}
	var dns *net.DNSError
	var op *net.OpError
	var advice string
	switch {
	case errors.As(err, &dns):
		advice = fmt.Sprintf("the host name %s in %s does not resolve: check %s", dns.Name, r.url, r.key)
	case errors.Is(err, syscall.ECONNREFUSED):
		advice = fmt.Sprintf("the server at %s refused the connection (nothing listens on that port): check %s, and that the directory server is running", r.url, r.key)
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		advice = fmt.Sprintf("there is no route from this host to %s: check %s, and the network between them", r.url, r.key)
	case !accepted && strings.HasPrefix(r.url, "ldaps:") && plainAnswer(err):
		advice = fmt.Sprintf("the server at %s did not answer the TLS handshake as a TLS server (%v): is that port its plain LDAP port? Use ldap:// for it (with startTLS: true to encrypt), or ldaps:// with the server's LDAPS port (636 by default); check %s",
			r.url, cause(err), r.key)
	case !isTimeout(err):
		return nil
	case !accepted && errors.As(err, &op) && op.Op == "dial":
		advice = fmt.Sprintf("the server at %s did not accept a connection within %s: check %s, and that no firewall drops the connection; if the server is only slow, raise %s", r.url, r.timeout, r.key, r.timeoutKey)
	default:
		advice = fmt.Sprintf("the server at %s accepted the connection but did not answer within %s: check %s (is it a directory server, and ldaps:// for its TLS port, ldap:// for its plain one?), and that no proxy or firewall holds the connection; if the server is only slow, raise %s",
			r.url, r.timeout, r.key, r.timeoutKey)
	}
	return &unreachableError{advice: advice, err: err}
}

// plainAnswer reports whether a TLS handshake failed the way it does
// against a server that does not speak TLS on that port: it closed or
// reset the connection, or answered something that is not TLS.
func plainAnswer(err error) bool {
	var record tls.RecordHeaderError
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &record)
}

// cause is the last error of a chain of network errors, without the
// addresses they repeat.
func cause(err error) error {
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Err
	}
	return err
}

// isTimeout reports whether err is a deadline passed on the connection
// (a bind's read), or a dial or TLS handshake that timed out.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
