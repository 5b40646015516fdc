package csvfile

import (
	"strings"
	"testing"
	"unicode/utf16"
)

// A value that is not UTF-8 in a file read as UTF-8 is a bad record with
// its line and column name; the other records are read.
func TestInvalidUTF8IsABadRecord(t *testing.T) {
	t.Parallel()
	csv := header +
		"Ann,Lee,ann@example.com,US,,,,\n" +
		"J\xfcrgen,M\xfcller,juergen@example.com,DE,,,,\n" + // 3: Latin-1
		"Bo,Ray,bo@example.com,US,\"eng,d\xe9sign\",,,\n" // 4: a bad group name
	res, path, err := readCSV(t, csv, Config{}, identity)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	checkProblems(t, path, res.Problems, []wantProblem{
		{3, "firstname", "not UTF-8 (an invalid byte at character 2 of the value); set encoding"},
		{3, "lastname", "not UTF-8 (an invalid byte at character 2 of the value); set encoding"},
		{4, "groups", "not UTF-8 (an invalid byte at character 2 of the value); set encoding"},
	})
	if res.Users.Len() != 1 || res.Users.At(0).Email != "ann@example.com" {
		t.Fatalf("users = %+v, want Ann only", res.Users.List())
	}
	if p := res.Problems[0].String(); !strings.Contains(p, path+":3 juergen@example.com: firstname: not UTF-8") {
		t.Errorf("problem text %q, want file, line, record and column", p)
	}
}

// The encoding key decodes Latin-1, Windows-1252 and UTF-16 (either byte
// order, told by the byte order mark).
func TestEncodings(t *testing.T) {
	t.Parallel()
	text := header + "Jürgen,Müller,juergen@example.com,DE,,,,\n"
	tests := []struct {
		name, encoding, csv, first string
	}{
		{"latin1", "latin1", header + "J\xfcrgen,M\xfcller,juergen@example.com,DE,,,,\n", "Jürgen"},
		{"iso-8859-1 alias", "ISO-8859-1", header + "J\xfcrgen,M\xfcller,juergen@example.com,DE,,,,\n", "Jürgen"},
		{"windows-1252", "windows-1252", header + "\x8aimon,M\xfcller,juergen@example.com,DE,,,,\n", "Šimon"},
		{"utf-16 little-endian BOM", "utf-16", utf16Bytes(text, true, false), "Jürgen"},
		{"utf-16 big-endian BOM", "utf-16", utf16Bytes(text, true, true), "Jürgen"},
		{"utf-16be without BOM", "utf-16be", utf16Bytes(text, false, true), "Jürgen"},
		{"utf-8 with BOM", "utf-8", "\xef\xbb\xbf" + text, "Jürgen"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, _, err := readCSV(t, tc.csv, Config{Encoding: tc.encoding}, nil)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if len(res.Problems) != 0 || res.Users.Len() != 1 {
				t.Fatalf("got %d users and problems %v, want 1 user", res.Users.Len(), res.Problems)
			}
			if u := res.Users.At(0); u.FirstName != tc.first || u.LastName != "Müller" {
				t.Errorf("user %q %q, want %q \"Müller\"", u.FirstName, u.LastName, tc.first)
			}
		})
	}
}

// A syntax error names the line where the broken record starts, and the
// line where the parser gave up.
func TestSyntaxErrorNamesTheRecordsFirstLine(t *testing.T) {
	t.Parallel()
	csv := header +
		"Ann,Lee,ann@example.com,US,,,,\n" + // 2
		"Bob,Ray,bob@example.com,US,,,,\n" + // 3
		"Cy,\"Ray,cy@example.com,US,,,,\n" + // 4: the stray quote
		"Di,Ray,di@example.com,US,,,,\n" + // 5
		"Ed,Ray,ed@example.com,US,,,,\n" + // 6
		"Fay,\"Ray\" Jr,fay@example.com,US,,,,\n" // 7: the quote the parser stops at
	_, path, err := readCSV(t, csv, Config{}, nil)
	if err == nil {
		t.Fatal("Read succeeded, want a syntax error")
	}
	want := path + ":4: the record starting on line 4 is broken: extraneous or missing \" in quoted-field (the parser gave up at line 7, column"
	if !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("err = %v\nwant prefix %s", err, want)
	}
}

// A UTF-16 file read as UTF-8 (no encoding key) fails the source with one
// message that says so and what to set, instead of a header of NUL bytes
// that has "no email column".
func TestUTF16WithoutEncodingSaysSo(t *testing.T) {
	t.Parallel()
	text := header + "Ann,Lee,ann@example.com,US,,,,\n"
	for name, data := range map[string]string{
		"little-endian BOM": utf16Bytes(text, true, false),
		"big-endian BOM":    utf16Bytes(text, true, true),
		"no BOM":            utf16Bytes(text, false, false),
	} {
		_, path, err := readCSV(t, data, Config{}, nil)
		if err == nil || !strings.HasPrefix(err.Error(), path+": the file is UTF-16") || !strings.Contains(err.Error(), "encoding: utf-16") || strings.Contains(err.Error(), `\x00`) {
			t.Errorf("%s: err = %v, want one message: the file is UTF-16, set encoding: utf-16", name, err)
		}
	}
}

// utf16Bytes encodes s in UTF-16, with or without a byte order mark.
func utf16Bytes(s string, bom bool, bigEndian bool) string {
	units := utf16.Encode([]rune(s))
	if bom {
		units = append([]uint16{0xfeff}, units...)
	}
	b := make([]byte, 0, 2*len(units))
	for _, u := range units {
		if bigEndian {
			b = append(b, byte(u>>8), byte(u))
		} else {
			b = append(b, byte(u), byte(u>>8))
		}
	}
	return string(b)
}
