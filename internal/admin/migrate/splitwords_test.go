package migrate

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestSplitWords splits command lines as a shell would, quotes and all,
// and refuses an unterminated quote.
func TestSplitWords(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{"", nil},
		{"  \t\n ", nil},
		{"--process-groups --users mapped", []string{"--process-groups", "--users", "mapped"}},
		{`--users group "Sales Team,Eng"`, []string{"--users", "group", "Sales Team,Eng"}},
		{`--user-filter 'a "b" c'`, []string{"--user-filter", `a "b" c`}},
		{`--x ""`, []string{"--x", ""}},
		{`pre"quoted part"post next`, []string{"prequoted partpost", "next"}},
	}
	for _, tt := range tests {
		got, err := SplitWords(tt.line)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("SplitWords(%q) = %q, %v; want %q", tt.line, got, err, tt.want)
		}
	}
	for _, line := range []string{`--users "mapped`, `'open`} {
		if _, err := SplitWords(line); err == nil || !strings.Contains(err.Error(), "unterminated") {
			t.Errorf("SplitWords(%q): %v, want an unterminated quote", line, err)
		}
	}
}

// FuzzSplitWords: any words of UTF-8 text without a single quote, each
// quoted with single quotes and joined by spaces, split back into
// themselves; and no input makes SplitWords panic.
func FuzzSplitWords(f *testing.F) {
	f.Add("--users mapped", "a b")
	f.Add(`"x"`, "")
	f.Fuzz(func(t *testing.T, a, b string) {
		SplitWords(a + " " + b) //nolint:errcheck // only that it returns
		words := []string{a, b}
		if strings.ContainsRune(a+b, '\'') || !utf8.ValidString(a) || !utf8.ValidString(b) {
			return
		}
		got, err := SplitWords("'" + a + "' '" + b + "'")
		if err != nil || !slices.Equal(got, words) {
			t.Errorf("SplitWords of %q quoted = %q, %v", words, got, err)
		}
	})
}
