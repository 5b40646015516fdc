package listenaddr

import (
	"net"
	"strings"
	"testing"
)

// Each way a listen fails gets its cause in words, the address and the
// key to set, never Go's "listen tcp" text.
func TestExplain(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, c := range []struct{ addr, want string }{
		{busy.Addr().String(), "another program (perhaps another orgsync) uses that address; stop it, or set --listen to a free address"},
		{"192.0.2.1:9090", "no network interface of this host has that address; set --listen"},
		{"nosuchhost.invalid:9090", "no network interface of this host has that address"},
		{"9090", "missing port in address; check --listen (host:port"},
	} {
		ln, err := net.Listen("tcp", c.addr)
		if err == nil {
			ln.Close()
			t.Fatalf("%s: listening succeeded", c.addr)
		}
		got := Explain("the simulator", c.addr, "--listen", err).Error()
		if !strings.HasPrefix(got, "cannot serve the simulator on "+c.addr+": ") || !strings.Contains(got, c.want) || strings.Contains(got, "listen tcp") {
			t.Errorf("%s: %s\nwant %q", c.addr, got, c.want)
		}
	}
}
