package source

import (
	"strings"
	"testing"
)

// TestAProblemsTextIsBounded: a problem quoting a huge value from the
// directory (an unmapped group's name, a record's DN) says so in at most
// a few kilobytes, wherever it is printed, logged or joined into a run's
// error.
func TestAProblemsTextIsBounded(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("G", 1<<20)
	p := Problem{Source: "sources[0]", File: "users.csv", Line: 7, Record: "cn=" + huge, Field: "groups",
		Reason: `group "` + huge + `" matches no mapping rule`}
	s := p.String()
	if len(s) > 5000 || !strings.HasPrefix(s, "users.csv:7 cn=GGG") || !strings.Contains(s, "more bytes)") {
		t.Errorf("problem text of %d bytes: %.200s", len(s), s)
	}
	if !strings.HasSuffix(p.Reason, "no mapping rule") || len(p.Reason) < 1<<20 {
		t.Error("String changed the problem")
	}
}
