package textcut

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"0123456789abc", 10, "0123456789… (3 more bytes)"},
		{"ééééé", 5, "éé… (6 more bytes)"}, // not inside a character
		{"x", 0, "… (1 more byte)"},
	} {
		if got := Cut(tc.in, tc.max); got != tc.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
	huge := strings.Repeat("日", 1<<20)
	if got := Cut(huge, Message); len(got) > Message+40 || !utf8.ValidString(got) {
		t.Errorf("a 3 MB value cut to %d bytes (valid UTF-8: %v)", len(got), utf8.ValidString(got))
	}
}
