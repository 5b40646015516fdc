package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryLinksNoToolingLibraries: the orgsync binary links none of the
// libraries only the packaging tool (nfpm) and the tests (Helm,
// Kubernetes' API types) use, as go version -m lists its modules.
func TestBinaryLinksNoToolingLibraries(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "version", "-m", binary).CombinedOutput()
	if err != nil {
		t.Fatalf("go version -m: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "\tdep\tgo.uber.org/zap") {
		t.Fatalf("go version -m lists no modules:\n%s", out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "dep" {
			continue
		}
		for _, heavy := range []string{"github.com/goreleaser/nfpm", "helm.sh/", "k8s.io/", "sigs.k8s.io/", "github.com/santhosh-tekuri/jsonschema"} {
			if strings.HasPrefix(f[1], heavy) {
				t.Errorf("the orgsync binary links %s", f[1])
			}
		}
	}
}
