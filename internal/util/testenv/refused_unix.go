//go:build unix

package testenv

import (
	"fmt"
	"syscall"
	"testing"
)

// RefusedAddr returns a loopback address, 127.0.0.1:PORT, where a
// connection is refused for as long as t runs: a socket is bound to the
// port and does not listen, so that no server takes the port meanwhile
// (a port found free and closed again could be, by a test running
// beside).
func RefusedAddr(t testing.TB) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
}
