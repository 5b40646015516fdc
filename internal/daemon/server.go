package daemon

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/orgsync/orgsync/internal/daemon/statuspage"
	"github.com/orgsync/orgsync/internal/util/listenaddr"
)

// timeouts bound every connection of the endpoints: a client that sends
// its request slowly, or keeps a connection open doing nothing, is cut
// off; a decision of the status page extends its own write deadline.
type timeouts struct {
	header, read, write, idle time.Duration
}

// serverTimeouts are the daemon's.
var serverTimeouts = timeouts{header: 10 * time.Second, read: 30 * time.Second, write: time.Minute, idle: 30 * time.Second}

// maxHeaderBytes bounds a request's header (Go's default is 1 MB);
// maxBodyBytes a request's body (the page's forms are a few hundred
// bytes).
const (
	maxHeaderBytes = 16 << 10
	maxBodyBytes   = 16 << 10
)

// serve starts serving the endpoints on d.listen.
func (d *daemon) serve() (*http.Server, error) {
	ln, err := net.Listen("tcp", d.listen)
	if err != nil {
		return nil, listenaddr.Explain("/healthz, /readyz and /metrics", d.listen, "schedule.listen (or --listen)", err)
	}
	srv := d.serveOn(ln, serverTimeouts, connectionBudget())
	d.log.Info("daemon started", zap.String("schedule", d.schedule.Cron), zap.String("timezone", d.zone()),
		zap.String("listen", ln.Addr().String()))
	return srv, nil
}

// serveOn serves the endpoints on ln with timeouts t, at most maxConns
// connections open at once, its errors logged through the daemon's
// logger.
func (d *daemon) serveOn(ln net.Listener, t timeouts, maxConns int) *http.Server {
	lim := newConnLimit(ln, maxConns)
	srv := &http.Server{
		Handler:           statuspage.Headers(lim.serving(d.mux())), // its own answers (413) with the security headers too
		ReadHeaderTimeout: t.header, ReadTimeout: t.read, WriteTimeout: t.write, IdleTimeout: t.idle,
		MaxHeaderBytes: maxHeaderBytes,
		ErrorLog:       serverLog(d.log),
		ConnContext:    lim.connContext,
	}
	go func() { _ = srv.Serve(lim) }()
	return srv
}

// serverLog is the logger of the server's own errors (a failed accept, a
// panic in a handler): the daemon's, as warnings, so that they reach
// logging.file at its usual levels.
func serverLog(zl *zap.Logger) *log.Logger {
	l, err := zap.NewStdLogAt(zl.Named("http"), zapcore.WarnLevel)
	if err != nil { // only for a level zap does not have
		return zap.NewStdLog(zl.Named("http"))
	}
	return l
}

// connLimit is a listener that keeps at most max connections open: when
// one more comes, it closes the oldest connection that is not being
// answered (idle, or still sending its request), so that a crowd of slow
// or idle clients cannot starve /healthz of connections or the process of
// file descriptors; when every connection is being answered, the new one
// is closed.
type connLimit struct {
	net.Listener
	max   int
	mu    sync.Mutex
	conns map[*limitedConn]struct{}
}

// limitedConn is one connection of a connLimit.
type limitedConn struct {
	net.Conn
	lim      *connLimit
	accepted time.Time
	busy     atomic.Int32 // requests being answered
	once     sync.Once
}

func newConnLimit(ln net.Listener, max int) *connLimit {
	return &connLimit{Listener: ln, max: max, conns: map[*limitedConn]struct{}{}}
}

// Accept accepts the next connection, making room for it.
func (l *connLimit) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		lc := &limitedConn{Conn: c, lim: l, accepted: time.Now()}
		l.mu.Lock()
		victim := l.room()
		if len(l.conns) < l.max || victim != nil {
			if victim != nil {
				delete(l.conns, victim)
			}
			l.conns[lc] = struct{}{}
			l.mu.Unlock()
			if victim != nil {
				_ = victim.Conn.Close()
			}
			return lc, nil
		}
		l.mu.Unlock()
		_ = c.Close() // every connection is being answered
	}
}

// room returns the connection to close to make room for one more (nil:
// there is room, or none can be closed). The caller holds l.mu.
func (l *connLimit) room() *limitedConn {
	if len(l.conns) < l.max {
		return nil
	}
	var oldest *limitedConn
	for c := range l.conns {
		if c.busy.Load() == 0 && (oldest == nil || c.accepted.Before(oldest.accepted)) {
			oldest = c
		}
	}
	return oldest
}

// Close closes the connection, and forgets it.
func (c *limitedConn) Close() error {
	c.once.Do(func() {
		c.lim.mu.Lock()
		delete(c.lim.conns, c)
		c.lim.mu.Unlock()
	})
	return c.Conn.Close()
}

// connKey keys a request's connection in its context.
type connKey struct{}

// connContext keeps the connection in its requests' context.
func (l *connLimit) connContext(ctx context.Context, c net.Conn) context.Context {
	if lc, ok := c.(*limitedConn); ok {
		return context.WithValue(ctx, connKey{}, lc)
	}
	return ctx
}

// serving marks a connection busy while h answers one of its requests:
// it is then not closed to make room. The request's body is read first
// (at most maxBodyBytes), while the connection can still be closed: a
// client that sends a form a byte at a time is a slow client, not one
// being answered, whatever h would do with the body.
func (l *connLimit) serving(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
			var tooLarge *http.MaxBytesError
			switch {
			case errors.As(err, &tooLarge):
				http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
				return
			case err != nil:
				return // cut off (the read timeout), or gone
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		if lc, ok := r.Context().Value(connKey{}).(*limitedConn); ok {
			lc.busy.Add(1)
			defer lc.busy.Add(-1)
		}
		h.ServeHTTP(w, r)
	})
}

// The bounds of the connections the endpoints keep open at once (see
// connectionBudget).
const (
	minConns = 8
	maxConns = 256
)
