package textenc

import (
	"io"
	"strings"
	"testing"
)

func TestFirstInvalid(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]int{"": 0, "Jürgen": 0, "J\xfcrgen": 2, "Müller \xff": 8, "\x80": 1, "ok\xe2\x82": 3} {
		if got := FirstInvalid(s); got != want {
			t.Errorf("FirstInvalid(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestNamesAndDecoding(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"", "UTF-8", "utf8", "utf-16", "UTF-16LE", "utf-16be", "latin1", "ISO-8859-1", "Windows-1252", "cp1252"} {
		if err := Check(name); err != nil {
			t.Errorf("Check(%q): %v", name, err)
		}
	}
	if err := Check("ascii"); err == nil || !strings.Contains(err.Error(), "use utf-8 (default)") {
		t.Errorf("Check(ascii) = %v, want the accepted names", err)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"utf-8", "J\xfcrgen", "J\xfcrgen"}, // read as is: the caller reports it
		{"latin1", "J\xfcrgen", "Jürgen"},
		{"windows-1252", "\x80 \x93x\x94", "€ “x”"},
		{"utf-16", "\xff\xfeJ\x00\xfc\x00", "Jü"},
		{"utf-16", "\xfe\xff\x00J\x00\xfc", "Jü"},
	} {
		b, err := io.ReadAll(NewReader(tc.name, strings.NewReader(tc.in)))
		d, err2 := Decode(tc.name, []byte(tc.in))
		if err != nil || err2 != nil || string(b) != tc.want || string(d) != tc.want {
			t.Errorf("%s %q: reader %q (%v), Decode %q (%v); want %q", tc.name, tc.in, b, err, d, err2, tc.want)
		}
	}
}
