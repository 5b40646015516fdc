// Package simserver serves the simulator of the service: from a state file
// of one organization or several, on a listener with or without TLS, until
// a context ends. `orgsync sim`, the demo and the tests use it.
package simserver

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/internal/util/listenaddr"
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

// Host is what `orgsync sim` serves: a state file's organizations on an
// address, with or without TLS.
type Host struct {
	State           string // the state file, required
	Listen          string // the address to listen on
	TLSCert, TLSKey string // with both set, HTTPS with this certificate and key
	Save            bool   // save the state back to State when serving ends
	Options         umsim.Options
	Log             *zap.Logger
}

// AddFlags defines h's settings as the flags of orgsync sim on fs.
func (h *Host) AddFlags(fs *flag.FlagSet) {
	fs.IntVar(&h.Options.PageSize, "page-size", 0, "users per listing page (default 2000)")
	fs.IntVar(&h.Options.InvitePageSize, "invite-page-size", 0, "invites per call (default 200)")
	fs.DurationVar(&h.Options.InviteExpiry, "invite-expiry", 0, "invite expiry (default 720h)")
	fs.BoolVar(&h.Options.ResendExpired, "resend-expired", false, "resend and revoke also act on expired invites (default: they answer 404, no pending invite)")
	fs.DurationVar(&h.Options.TokenLifetime, "token-lifetime", 0, "access token lifetime (default 24h)")
	fs.IntVar(&h.Options.Limits.Read, "read-limit", 25, "requests to endpoints 1-3 per access token per window (0: no limit)")
	fs.IntVar(&h.Options.Limits.App, "app-limit", 100, "requests per API key per window (0: no limit)")
	fs.DurationVar(&h.Options.Limits.Window, "window", time.Minute, "rate-limit window")
	fs.Int64Var(&h.Options.Faults.Seed, "seed", 1, "seed of the injected faults")
	fs.Float64Var(&h.Options.Faults.ErrorRate, "error-rate", 0, "fraction of requests answered 500/503")
	fs.Float64Var(&h.Options.Faults.AmbiguousRate, "ambiguous-rate", 0, "fraction of action requests applied but answered 500 or dropped")
	fs.Float64Var(&h.Options.Faults.DropRate, "drop-rate", 0, "fraction of requests whose connection is dropped")
	fs.DurationVar(&h.Options.Faults.Latency, "latency", 0, "latency added to every request")
	fs.Float64Var(&h.Options.Faults.HangRate, "hang-rate", 0, "fraction of requests accepted and never answered")
	fs.BoolVar(&h.Options.Faults.HangAll, "hang", false, "accept every request, the token endpoints' too, and never answer")
	fs.Float64Var(&h.Options.Faults.CutRate, "cut-rate", 0, "fraction of requests served whose answer is cut in the middle of its body")
	fs.StringVar(&h.Listen, "listen", "127.0.0.1:8080", "address to listen on")
	fs.StringVar(&h.State, "state", "", "state file (YAML or JSON) of one organization (org:) or several (orgs:), required")
	fs.BoolVar(&h.Save, "save", false, "save the state back to --state on shutdown")
	fs.StringVar(&h.TLSCert, "tls-cert", "", "serve HTTPS with this PEM certificate (with --tls-key), for clients that insist on https")
	fs.StringVar(&h.TLSKey, "tls-key", "", "the PEM private key of --tls-cert")
}

// Run serves h until ctx ends, logs each organization's requests, and
// saves the state when asked.
func (h *Host) Run(ctx context.Context) error {
	if h.State == "" {
		return errors.New("--state is required (try examples/sim/org.yaml)")
	}
	if (h.TLSCert == "") != (h.TLSKey == "") {
		return errors.New("--tls-cert and --tls-key go together")
	}
	srv, err := Load(h.State, h.Options)
	if err != nil {
		return err
	}
	ln, scheme, err := Listen(h.Listen, h.TLSCert, h.TLSKey)
	if err != nil {
		return err
	}
	h.Log.Info("simulator listening", zap.String("url", scheme+"://"+ln.Addr().String()), zap.String("state", h.State),
		zap.Int("organizations", len(srv.Servers())))
	if err := Serve(ctx, ln, srv); err != nil {
		return err
	}
	for _, s := range srv.Servers() {
		st := s.Stats()
		h.Log.Info("simulator stopped", zap.String("org", s.OrgID()), zap.Int("requests", st.Total()), zap.Int("429s", st.TooManyRequests))
	}
	if !h.Save {
		return nil
	}
	if err := srv.SaveState(h.State); err != nil {
		return err
	}
	h.Log.Info("state saved", zap.String("state", h.State))
	return nil
}
