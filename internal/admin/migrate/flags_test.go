package migrate

import (
	"slices"
	"testing"
)

// SplitFlags splits as a shell does plain and quoted words, and refuses an
// unterminated quote.
func TestSplitFlags(t *testing.T) {
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
