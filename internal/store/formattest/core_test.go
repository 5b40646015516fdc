package formattest

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/store/planjson"
	"github.com/orgsync/orgsync/reconcile"
)

// recorder is a test that keeps its errors.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// NoCoreTypes finds a core type however deep it is held, and passes one
// held through a codec of the format's own.
func TestNoCoreTypes(t *testing.T) {
	t.Parallel()
	type inner struct{ Users map[string][]*reconcile.User }
	for _, tc := range []struct {
		v    any
		errs int
	}{
		{struct{ Plan *reconcile.Plan }{}, 1},
		{struct{ In []inner }{}, 1},
		{struct{ Kinds map[reconcile.Kind]int }{}, 1},
		{struct {
			Changes planjson.Changes
			When    time.Time
			Skip    reconcile.Plan `json:"-"`
			hidden  reconcile.Plan
		}{}, 0},
	} {
		r := &recorder{TB: t}
		NoCoreTypes(r, tc.v)
		if len(r.errs) != tc.errs {
			t.Errorf("%T: %d errors %q, want %d", tc.v, len(r.errs), r.errs, tc.errs)
		}
	}
}

// Section ends at the next heading of its level or above, not at a
// deeper one nor at a comment in a code block.
func TestSection(t *testing.T) {
	t.Parallel()
	page := "# P\n## A\ntext\n### A.1\n```\n# comment\n```\nmore\n## B\nother\n"
	path := t.TempDir() + "/page.md"
	if err := os.WriteFile(path, []byte(page), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, want := Section(t, path, "## A"), "## A\ntext\n### A.1\n```\n# comment\n```\nmore"; got != want {
		t.Errorf("Section = %q, want %q", got, want)
	}
}
