//go:build !unix

package testenv

import (
	"net"
	"testing"
)

// RefusedAddr returns a loopback address, 127.0.0.1:PORT, where nothing
// listens: elsewhere than on Unix, a port found free a moment ago.
func RefusedAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
