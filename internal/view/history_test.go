package view

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/store"
)

// TestHistory: the JSON lines read back as the entries; the table has a
// line per entry with its failure code and its approval.
func TestHistory(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	entries := []store.Entry{
		{Run: "r1", Time: at, Org: "main", User: "dave@example.com", Kind: "create", Steps: []string{"add Design"}, Result: store.ResultApplied, Approval: "a1", DecidedBy: "ann"},
		{Run: "r1", Time: at, Org: "main", User: "eve@example.com", Kind: "update", Steps: []string{"add X", "remove Y"}, Result: store.ResultFailed, Code: "error.group.not_found"},
	}
	var b bytes.Buffer
	if err := History(&b, entries, FormatJSON); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(&b)
	for i := range entries {
		var e store.Entry
		if err := dec.Decode(&e); err != nil || e.User != entries[i].User || !e.Time.Equal(at) || len(e.Steps) != len(entries[i].Steps) {
			t.Errorf("line %d: %+v, %v", i, e, err)
		}
	}
	b.Reset()
	if err := History(&b, entries, FormatText); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, want := range []string{"TIME", "(approval a1, approved by ann)", "failed error.group.not_found", "add X; remove Y"} {
		if !strings.Contains(text, want) {
			t.Errorf("table lacks %q:\n%s", want, text)
		}
	}
	b.Reset()
	if err := History(&b, nil, FormatText); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "no changes recorded") {
		t.Errorf("empty table: %q", b.String())
	}
}
