package examples

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rhysd/actionlint"

	"github.com/orgsync/orgsync/internal/util/testenv"
)

// TestGitHubWorkflowIsValid lints the workflow with actionlint, shellcheck
// on its run scripts included.
func TestGitHubWorkflowIsValid(t *testing.T) {
	testenv.Program(t, "shellcheck", "shellcheck")
	path := filepath.Join(examples, "ci", "github", "orgsync.yml")
	var out bytes.Buffer
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{Shellcheck: "shellcheck"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.Lint(path, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Errorf("actionlint: %s", e)
	}
}
