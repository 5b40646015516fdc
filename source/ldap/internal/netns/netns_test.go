package netns

import (
	"bufio"
	"net"
	"testing"

	"github.com/orgsync/orgsync/internal/util/testenv"
)

// TestForwardIntoTheNamespace: a server in the namespace listens on a
// port that a server of the machine holds too; the forwarded port reaches
// the one inside, and Close ends the forwarding.
func TestForwardIntoTheNamespace(t *testing.T) {
	t.Parallel()
	testenv.Root(t, "a network namespace")
	outside := serve(t, nil, "127.0.0.1:0", "outside")
	_, port, _ := net.SplitHostPort(outside.Addr().String())
	n, err := New()
	if err != nil {
		t.Fatal(err)
	}
	serve(t, n, "127.0.0.1:"+port, "inside")
	addr, err := n.Forward(port)
	if err != nil {
		t.Fatal(err)
	}
	if got := greeting(t, addr); got != "inside" {
		t.Errorf("through the forwarded port: %q, want inside", got)
	}
	if got := greeting(t, outside.Addr().String()); got != "outside" {
		t.Errorf("the machine's own server: %q, want outside", got)
	}
	n.Close()
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Error("the forwarded port still accepts connections after Close")
	}
	if n.Do(func() { t.Error("Do ran after Close") }) {
		t.Error("Do reported running after Close")
	}
	if _, err := n.Dial(port); err == nil {
		t.Error("Dial succeeded after Close")
	}
}

// serve listens on addr (in n when it is not nil) and greets each
// connection with hello.
func serve(t *testing.T, n *Namespace, addr, hello string) net.Listener {
	t.Helper()
	var l net.Listener
	var err error
	listen := func() { l, err = net.Listen("tcp", addr) }
	if n != nil {
		n.Do(listen)
	} else {
		listen()
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte(hello + "\n"))
			c.Close()
		}
	}()
	return l
}

func greeting(t *testing.T, addr string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	line, _ := bufio.NewReader(c).ReadString('\n')
	return line[:max(0, len(line)-1)]
}
