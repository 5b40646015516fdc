package umsim

import (
	"os/exec"
	"strings"
	"testing"
)

// The simulator and the client share only the wire format (umwire): the
// simulator checks requests with the specification's rules, not with the
// reconciler's, so that a wrong rule on one side fails a test.
func TestSimulatorAndClientImportNoReconciler(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".", "../umapi").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/orgsync/orgsync/") && !strings.HasPrefix(pkg, "github.com/orgsync/orgsync/target/") &&
			pkg != "github.com/orgsync/orgsync/internal/atomicfile" {
			t.Errorf("the simulator or the client depends on %s", pkg)
		}
	}
}
