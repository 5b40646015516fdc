package store

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWriteEntries: the JSON lines read back as the entries; the table has
// a line per entry with its failure code and its approval.
func TestWriteEntries(t *testing.T) {
	at := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	entries := []Entry{
		{Run: "r1", Time: at, Org: "main", User: "dave@example.com", Kind: "create", Steps: []string{"add Design"}, Result: ResultApplied, Approval: "a1"},
		{Run: "r1", Time: at, Org: "main", User: "eve@example.com", Kind: "update", Steps: []string{"add X", "remove Y"}, Result: ResultFailed, Code: "error.group.not_found"},
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, entries); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(&b)
	for i := range entries {
		var e Entry
		if err := dec.Decode(&e); err != nil || e.User != entries[i].User || !e.Time.Equal(at) || len(e.Steps) != len(entries[i].Steps) {
			t.Errorf("line %d: %+v, %v", i, e, err)
		}
	}
	b.Reset()
	WriteTable(&b, entries)
	text := b.String()
	for _, want := range []string{"TIME", "(approval a1)", "failed error.group.not_found", "add X; remove Y"} {
		if !strings.Contains(text, want) {
			t.Errorf("table lacks %q:\n%s", want, text)
		}
	}
	b.Reset()
	WriteTable(&b, nil)
	if !strings.Contains(b.String(), "no changes recorded") {
		t.Errorf("empty table: %q", b.String())
	}
}

// TestCheck: a state directory that cannot be written is found before a
// run: a path under a file, a history that is not a file; one that does
// not exist yet, under a folder that does, is fine.
func TestCheck(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Check(filepath.Join(base, "new", "state")); err != nil {
		t.Errorf("a state directory to be made: %v", err)
	}
	if err := Check(file); err == nil || !strings.Contains(err.Error(), "is not a folder") {
		t.Errorf("a file as the state directory: %v", err)
	}
	dir := filepath.Join(base, "state")
	if _, err := Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Check(dir); err != nil {
		t.Errorf("a fresh state directory: %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, historyFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Check(dir); err == nil || !strings.Contains(err.Error(), "history.jsonl cannot be appended to") {
		t.Errorf("a history that is a folder: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("the check left files behind: %v", entries)
	}
}
