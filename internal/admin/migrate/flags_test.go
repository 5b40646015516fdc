package migrate

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// SplitFlags splits as a shell does plain and quoted words, and refuses an
// unterminated quote.
func TestSplitFlags(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]string{
		"":                                      nil,
		"--process-groups --users mapped":       {"--process-groups", "--users", "mapped"},
		"  --users\tgroup \"Sales Team,Ops\"  ": {"--users", "group", "Sales Team,Ops"},
		"--user-filter 'a b'c":                  {"--user-filter", "a bc"},
	} {
		if got, err := SplitFlags(in); err != nil || !slices.Equal(got, want) {
			t.Errorf("SplitFlags(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := SplitFlags(`--users "mapped`); err == nil {
		t.Error("an unterminated quote was accepted")
	}
}

// FuzzSplitFlags: any words of UTF-8 text without a single quote, each
// quoted with single quotes and joined by spaces, split back into
// themselves; and no input makes SplitFlags panic.
func FuzzSplitFlags(f *testing.F) {
	f.Add("--users mapped", "a b")
	f.Add(`"x"`, "")
	f.Fuzz(func(t *testing.T, a, b string) {
		SplitFlags(a + " " + b) //nolint:errcheck // only that it returns
		words := []string{a, b}
		if strings.ContainsRune(a+b, '\'') || !utf8.ValidString(a) || !utf8.ValidString(b) {
			return
		}
		got, err := SplitFlags("'" + a + "' '" + b + "'")
		if err != nil || !slices.Equal(got, words) {
			t.Errorf("SplitFlags of %q quoted = %q, %v", words, got, err)
		}
	})
}
