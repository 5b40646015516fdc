package store

import (
	"fmt"
	"testing"
	"time"
)

// entries makes n history entries of a typical size.
func entries(n int) []Entry {
	out := make([]Entry, n)
	now := time.Now().UTC()
	for i := range out {
		out[i] = Entry{Run: "20261125T231500.000Z", Time: now, Org: "default", User: fmt.Sprintf("user%06d@example.com", i),
			Kind: "update", Steps: []string{"add Engineering", "remove Design"}, Result: ResultApplied,
			Reason: "the sources and mapping rules no longer give these groups"}
	}
	return out
}

// BenchmarkAppendHistory1000 appends one run's 1,000 entries (one write).
func BenchmarkAppendHistory1000(b *testing.B) {
	d, err := Open(b.TempDir(), Options{MaxFileBytes: 1 << 40})
	if err != nil {
		b.Fatal(err)
	}
	batch := entries(1000)
	b.ResetTimer()
	for range b.N {
		if err := d.AppendHistory(batch); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHistoryOneUserOf100k finds one user's entries among 100,000.
func BenchmarkHistoryOneUserOf100k(b *testing.B) {
	d, err := Open(b.TempDir(), Options{MaxFileBytes: 1 << 40})
	if err != nil {
		b.Fatal(err)
	}
	for range 100 {
		if err := d.AppendHistory(entries(1000)); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		got, err := d.History(Filter{User: "user000042@example.com"})
		if err != nil || len(got) != 100 {
			b.Fatalf("%d entries, %v", len(got), err)
		}
	}
}

// FuzzHistoryFile: whatever the history file holds (a torn or foreign
// line, binary junk), reading it neither panics nor returns an entry that
// was not a whole JSON line.
func FuzzHistoryFile(f *testing.F) {
	f.Add([]byte(`{"run":"r1","user":"a@example.com"}` + "\n" + `{"run":"r2","us`))
	f.Add([]byte("\x00\xff\n\n{}\n[1,2]\n\"s\"\n"))
	f.Add([]byte(`{"time":"not a time"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Open(t.TempDir(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := writeFile(d.history.path, data); err != nil {
			t.Fatal(err)
		}
		got, err := d.History(Filter{User: "a@example.com"})
		if err != nil && len(data) < 16<<20 {
			t.Fatalf("reading %q: %v", data, err)
		}
		for _, e := range got {
			if e.User != "a@example.com" {
				t.Fatalf("entry %+v passed the filter", e)
			}
		}
	})
}
