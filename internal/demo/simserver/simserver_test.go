package simserver

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umsim"
)

// TestServeUntilCancelled: the simulator of a state file answers over
// loopback HTTP until the context ends, then Serve returns nil.
func TestServeUntilCancelled(t *testing.T) {
	t.Parallel()
	sim, err := Load(filepath.Join("..", "..", "..", "examples", "sim", "orgs.yaml"), umsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sim.Servers()) != 2 {
		t.Fatalf("%d organizations, want the examples' 2", len(sim.Servers()))
	}
	ln, scheme, err := Listen("127.0.0.1:0", "", "")
	if err != nil || scheme != "http" {
		t.Fatalf("listen: %v, %s", err, scheme)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, sim) }()
	resp, err := http.Get("http://" + ln.Addr().String() + "/v2/usermanagement/organizations/1234ABCD@VendorOrg/users/0")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized { // answered by the simulator: no token
		t.Errorf("status %d, want 401", resp.StatusCode)
	}
	if requests, _ := Totals(sim); requests != 1 {
		t.Errorf("requests counted %d, want 1", requests)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(shutdownTimeout):
		t.Fatal("Serve did not return after the context ended")
	}
	if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		c.Close()
		t.Error("still listening after shutdown")
	}
}

// TestListenBadCertificate names the flags to fix.
func TestListenBadCertificate(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "cert.pem")
	if err := os.WriteFile(bad, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Listen("127.0.0.1:0", bad, bad); err == nil || !strings.Contains(err.Error(), "--tls-cert/--tls-key") {
		t.Errorf("error %v, want one naming --tls-cert/--tls-key", err)
	}
}
