package secrettest_test

import (
	"strings"
	"testing"

	"github.com/orgsync/orgsync/secret/secrettest"
)

// TestFileLoadsItsValue: the reference loads the value, and says it is a
// file.
func TestFileLoadsItsValue(t *testing.T) {
	t.Parallel()
	ref := secrettest.File(t, "s3cret")
	v, err := ref.Load()
	if err != nil || v.Reveal() != "s3cret" || !strings.HasPrefix(ref.String(), "file ") {
		t.Errorf("Load = %v, %v; String %q", v, err, ref.String())
	}
}
