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
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".", "../umapi").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, above := range []string{"reconcile", "config", "source", "cmd", "internal/run", "target/umtarget"} {
			if p := "github.com/orgsync/orgsync/" + above; pkg == p || strings.HasPrefix(pkg, p+"/") {
				t.Errorf("the simulator or the client depends on %s", pkg)
			}
		}
	}
}
