package view

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/util/termsafe"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umwire"
)

// hostileGroup sets a terminal's title, rings its bell, turns it red,
// adds a column to a table and forges a line of a plan.
const hostileGroup = "\x1b]0;pwned\a\x1b[31mDesign\tX\n- remove ceo@example.com (federatedID)"

// TestTablesShowHostileValuesAsData replays finding 7 of issue 33 on
// users list and history: a group name with ESC, BEL, a tab and a
// newline leaves no control character in the table, adds no row or
// column, and the columns stay aligned under the header.
func TestTablesShowHostileValuesAsData(t *testing.T) {
	t.Parallel()
	users := []umwire.User{{Email: "ann@example.com", Type: "federatedID", FirstName: "Ann\u202e", Groups: []string{hostileGroup}},
		{Email: "bob@example.com", Type: "adobeID", FirstName: "Bob"}}
	var b bytes.Buffer
	if err := Users(&b, users, FormatText); err != nil {
		t.Fatal(err)
	}
	assertTable(t, "users list", b.String(), 3)
	b.Reset()
	entries := []store.Entry{{Time: time.Now(), Org: "main", User: "ann@example.com", Kind: "update", Steps: []string{"add " + hostileGroup},
		Result: store.ResultFailed, Code: "x\x1b[2J"}}
	if err := History(&b, entries, FormatText); err != nil {
		t.Fatal(err)
	}
	assertTable(t, "history", b.String(), 2)
}

// assertTable checks that text is rows lines, shown as data, with each
// header's column starting at the same place on every line.
func assertTable(t *testing.T, name, text string, rows int) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) != rows || !termsafe.Safe(text, termsafe.Text) || strings.ContainsRune(text, '\t') || !strings.Contains(text, `\x1b]0;pwned\a`) {
		t.Fatalf("%s: not %d lines shown as data:\n%q", name, rows, text)
	}
	for _, col := range strings.Fields(lines[0])[1:] {
		at := strings.Index(lines[0], col)
		for _, l := range lines[1:] {
			if len([]rune(l)) > at && (l[at-1] != ' ' || l[at-2] != ' ') {
				t.Errorf("%s: column %s (at %d) is not aligned in %q", name, col, at, l)
			}
		}
	}
}

// TestPlanLinesShowHostileValuesAsData: a group name holding control
// characters and a newline is one escaped line of the plan, and the
// removal it spells is no line of its own.
func TestPlanLinesShowHostileValuesAsData(t *testing.T) {
	t.Parallel()
	p := &reconcile.Plan{Changes: []reconcile.Change{{Kind: reconcile.KindUpdate, User: ent("ann@example.com", "Ann"), Add: []string{hostileGroup}}}}
	var b bytes.Buffer
	if err := Plan(&b, p); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !termsafe.Safe(out, termsafe.Text) || strings.Contains(out, "\n- remove") ||
		!strings.Contains(out, "~ update ann@example.com (enterpriseID) groups: +\\x1b]0;pwned\\a\\x1b[31mDesign\tX\\n- remove ceo@example.com") {
		t.Errorf("plan:\n%s", out)
	}
}
