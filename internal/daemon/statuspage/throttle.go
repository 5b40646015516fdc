package statuspage

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// The throttle of failed logins: each client address may fail freeLogins
// times; every failure after that locks it out for a time that doubles
// from firstLockout up to maxLockout; an address that has not failed for
// forgetAfter starts afresh. At most maxClients addresses are kept (the
// oldest forgotten first).
const (
	freeLogins   = 5
	firstLockout = time.Second
	maxLockout   = 5 * time.Minute
	forgetAfter  = 15 * time.Minute
	maxClients   = 4096
)

// throttle counts the failed logins of each client address and locks out
// one that fails too often.
type throttle struct {
	now     func() time.Time
	mu      sync.Mutex
	clients map[string]*failures
}

// failures are one client address's failed logins.
type failures struct {
	n     int       // in a row, within forgetAfter of each other
	last  time.Time // the last one
	until time.Time // locked out until then
}

func newThrottle(now func() time.Time) *throttle {
	return &throttle{now: now, clients: map[string]*failures{}}
}

// lockedOut returns how long client is still locked out (0: it is not).
func (t *throttle) lockedOut(client string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if f := t.clients[client]; f != nil {
		return max(f.until.Sub(t.now()), 0)
	}
	return 0
}

// failed counts a failed login of client, and returns how many it has
// failed in a row and how long it is now locked out (0: not).
func (t *throttle) failed(client string) (int, time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	f := t.clients[client]
	if f == nil || now.Sub(f.last) > forgetAfter {
		t.forgetOldest()
		f = &failures{}
		t.clients[client] = f
	}
	f.n++
	f.last = now
	if f.n <= freeLogins {
		return f.n, 0
	}
	lock := maxLockout
	if shift := f.n - freeLogins - 1; shift < 16 {
		lock = min(firstLockout<<shift, maxLockout)
	}
	f.until = now.Add(lock)
	return f.n, lock
}

// succeeded forgets client's failures.
func (t *throttle) succeeded(client string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.clients, client)
}

// forgetOldest makes room for one more address when the table is full:
// the addresses done failing go first, else the one that failed least
// recently. The caller holds t.mu.
func (t *throttle) forgetOldest() {
	if len(t.clients) < maxClients {
		return
	}
	now, oldest := t.now(), ""
	for k, f := range t.clients {
		if now.Sub(f.last) > forgetAfter {
			delete(t.clients, k)
			continue
		}
		if oldest == "" || f.last.Before(t.clients[oldest].last) {
			oldest = k
		}
	}
	if len(t.clients) >= maxClients {
		delete(t.clients, oldest)
	}
}

// clientOf is the address a request's failed logins are counted by: its
// IP address, or for IPv6 its /64 network (one machine commonly holds a
// whole /64). Behind a reverse proxy every client shares the proxy's.
func clientOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return host
	}
	if ip.To4() == nil {
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return ip.String()
}
