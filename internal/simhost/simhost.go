// Package simhost serves the simulator of the service: from a state file
// of one organization or several, on a listener with or without TLS, until
// a context ends. `orgsync sim`, the demo and the tests use it.
package simhost

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/orgsync/orgsync/internal/listenaddr"
	"github.com/orgsync/orgsync/target/umsim"
)

// shutdownTimeout bounds the graceful shutdown.
const shutdownTimeout = 10 * time.Second

// Load loads the state file (one organization or several) and serves it
// with opts, each organization with limits of its own.
func Load(statePath string, opts umsim.Options) (*umsim.Multi, error) {
	states, err := umsim.LoadSeed(statePath)
	if err != nil {
		return nil, err
	}
	return umsim.NewMulti(states, opts)
}

// Totals sums the requests and the 429s of every organization of m.
func Totals(m *umsim.Multi) (requests, tooMany int) {
	for _, s := range m.Servers() {
		st := s.Stats()
		requests += st.Total()
		tooMany += st.TooManyRequests
	}
	return requests, tooMany
}

// Listen listens on addr, with TLS when certFile and keyFile are set; it
// returns the URL scheme it serves.
func Listen(addr, certFile, keyFile string) (net.Listener, string, error) {
	if certFile == "" {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, "", listenaddr.Explain("the simulator", addr, "--listen", err)
		}
		return ln, "http", nil
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, "", fmt.Errorf("--tls-cert/--tls-key: %w", err)
	}
	ln, err := tls.Listen("tcp", addr, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		return nil, "", listenaddr.Explain("the simulator", addr, "--listen", err)
	}
	return ln, "https", nil
}

// Serve serves h on ln until ctx ends, then shuts down gracefully,
// letting requests in flight finish.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	// Requests live in ctx, so that those the simulator holds unanswered
	// (--hang) end when it stops instead of holding up the shutdown.
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
