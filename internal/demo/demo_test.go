package demo

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/source/okta/oktafake"
)

// TestStartPointsTheExampleAtItsServers: the okta example's configuration
// loads, names the simulator and the fake started for it (with the demo
// secret in a file, never in the configuration), and Close stops them and
// removes the copied examples.
func TestStartPointsTheExampleAtItsServers(t *testing.T) {
	var out bytes.Buffer
	s, err := Start(context.Background(), Examples["okta"], &out)
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), s.URL) || !strings.Contains(string(text), "apiToken: {file: demo-secret}") ||
		strings.Contains(string(text), oktafake.DemoToken) {
		t.Errorf("configuration not pointed at the demo's servers, or holding the secret:\n%s", text)
	}
	if _, err := config.Load(s.Config); err != nil {
		t.Errorf("the demo configuration does not load: %v", err)
	}
	if !strings.Contains(out.String(), "Fake Okta organization at") || !strings.Contains(out.String(), s.URL) {
		t.Errorf("output: %q", out.String())
	}
	resp, err := http.Get(s.URL + "/v2/usermanagement/organizations/1234ABCD@VendorOrg/users/0")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	s.Close()
	if _, err := os.Stat(s.Config); !os.IsNotExist(err) {
		t.Errorf("the copied examples are left after Close: %v", err)
	}
	if _, err := http.Get(s.URL); err == nil {
		t.Error("the simulator still answers after Close")
	}
}
