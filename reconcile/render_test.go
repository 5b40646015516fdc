package reconcile

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// The text plan lists the unmatched users up to MaxUnmatchedShown, counts
// the rest with where to find them, and gives the excluded count.
func TestRenderListsUnmatchedAndExcluded(t *testing.T) {
	pol := basePolicy()
	pol.ExcludeGroups = []string{"Admins"}
	cur := &Current{Users: []User{ent("admin@x.com", "A", "Admins"), ent("keep@x.com", "K")}}
	for i := range MaxUnmatchedShown + 5 {
		cur.Users = append(cur.Users, ent(fmt.Sprintf("old%02d@x.com", i), "O"))
	}
	p, err := Diff(Desired{Complete: true, Users: []User{ent("keep@x.com", "K")}}, cur, validPolicy(t, pol))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := p.Render(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"# 25 unmatched users (in the organization, in no source; policy.unmatchedUsers says what happens to them):\n",
		"#   old00@x.com (enterpriseID)\n",
		"#   old19@x.com (enterpriseID)\n#   ... and 5 more (see --output json or policy.reportFile)\n",
		"# 1 excluded user (left alone by policy.exclude)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the plan lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "old20@x.com") || strings.Contains(out, "admin@x.com") {
		t.Errorf("the plan lists more than %d unmatched users, or the excluded one:\n%s", MaxUnmatchedShown, out)
	}
}
