package csvsafe

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
)

// TestFormulasAreNeutralized replays finding 6 of issue 33: a group name
// =SUM(1+2) and user fields starting with +, - and @ reach the file as
// text a spreadsheet does not evaluate.
func TestFormulasAreNeutralized(t *testing.T) {
	t.Parallel()
	record := []string{"=SUM(1+2)", "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1", "ann@example.com", "", "Design", "a=b"}
	want := []string{"'=SUM(1+2)", "'+1+1", "'-2+3", "'@SUM(A1)", "'\t=1", "'\r=1", "ann@example.com", "", "Design", "a=b"}
	var b bytes.Buffer
	w := NewWriter(&b)
	if err := w.Write(record); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		t.Fatal(err)
	}
	got, err := csv.NewReader(&b).Read()
	if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("read back %q (%v), want %q", got, err, want)
	}
	if record[0] != "=SUM(1+2)" {
		t.Error("Write changed the caller's record")
	}
	for i, cell := range got {
		if v := Value(cell); v != record[i] {
			t.Errorf("Value(%q) = %q, want %q", cell, v, record[i])
		}
	}
	if v := Value("'plain"); v != "'plain" {
		t.Errorf("Value of a quote before a cell that is no formula: %q, want it kept", v)
	}
}

// FuzzCell: whatever a record holds, the file read back by a CSV reader
// has the same number of cells, none that a spreadsheet reads as a
// formula, and each is the cell written, or a quote and the cell written
// when that started as a formula does (encoding/csv's reader reads a
// CRLF inside a cell as LF, as it always has).
func FuzzCell(f *testing.F) {
	for _, s := range []string{"=SUM(1+2)", "+cmd|' /C calc'!A0", "-1", "@x", "\t=1", "\r\n=1", "plain", "", "'=already", "a,b\"c\nd"} {
		f.Add(s, "=HYPERLINK(\"https://evil.example\",\"x\")")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		record := []string{"first", a, b}
		var buf bytes.Buffer
		w := NewWriter(&buf)
		_ = w.Write(record)
		w.Flush()
		if w.Error() != nil {
			t.Fatal(w.Error())
		}
		got, err := csv.NewReader(&buf).Read()
		if err != nil || len(got) != len(record) {
			t.Fatalf("%q reads back as %q, %v", record, got, err)
		}
		for i, c := range record {
			want := strings.ReplaceAll(c, "\r\n", "\n")
			if Dangerous(c) {
				want = "'" + want
			}
			if got[i] != want || Dangerous(got[i]) {
				t.Fatalf("cell %q reads back as %q, want %q", c, got[i], want)
			}
		}
	})
}
