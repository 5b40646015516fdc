package docs_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// maxModules is the most modules orgsync's module may count in `go list
// -m all` (93 on 2026-11-28).
const maxModules = 120

// toolingModules are the module paths (prefixes) of test and release
// tooling, which belong to the tools module (tools/go.mod).
var toolingModules = []string{
	"helm.sh/", "k8s.io/", "sigs.k8s.io/", "github.com/chromedp/",
	"github.com/goreleaser/nfpm", "github.com/rhysd/actionlint",
}

// TestModuleGraphStaysSmall: orgsync's module requires what the binary
// links and light test helpers, and nothing of the test and release
// tooling: `go list -m all` counts at most maxModules modules, none of
// them Helm, Kubernetes, chromedp, nfpm or actionlint. A vulnerability
// scanner run on orgsync's module reports what users build.
func TestModuleGraphStaysSmall(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("go", "list", "-m", "all")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -m all: %v\n%s", err, out)
	}
	mods := strings.Split(strings.TrimSpace(string(out)), "\n")
	if mods[0] != "github.com/orgsync/orgsync" {
		t.Fatalf("go list -m all starts with %q, want orgsync's module", mods[0])
	}
	if len(mods) > maxModules {
		t.Errorf("orgsync's module counts %d modules in go list -m all, at most %d: test and release tooling goes to the tools module (tools/go.mod)", len(mods), maxModules)
	}
	for _, m := range mods {
		for _, tool := range toolingModules {
			if strings.HasPrefix(m, tool) {
				t.Errorf("orgsync's module requires %s, tooling that belongs to the tools module (tools/go.mod)", m)
			}
		}
	}
}
