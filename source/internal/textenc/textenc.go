// Package textenc turns the text of a file source (CSV, YAML) into UTF-8
// according to the source's `encoding` key: utf-8 (the default, read as
// is, so that invalid bytes can be reported where they are), utf-16 (the
// byte order from the byte order mark, little-endian without one),
// utf-16le, utf-16be, latin1 (ISO 8859-1) and windows-1252. The decoders
// are golang.org/x/text's.
package textenc

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// The encoding names a file source accepts (letter case ignored).
const (
	UTF8        = "utf-8"
	UTF16       = "utf-16"
	UTF16LE     = "utf-16le"
	UTF16BE     = "utf-16be"
	Latin1      = "latin1"
	Windows1252 = "windows-1252"
)

// Names lists the accepted names, for messages and documentation.
const Names = "utf-8 (default), utf-16 (byte order mark detected), utf-16le, utf-16be, latin1, windows-1252"

// encodings maps every accepted name and alias to its decoder; nil means
// the text is UTF-8 already.
var encodings = map[string]encoding.Encoding{
	"": nil, UTF8: nil, "utf8": nil,
	UTF16:   unicode.UTF16(unicode.LittleEndian, unicode.UseBOM),
	UTF16LE: unicode.UTF16(unicode.LittleEndian, unicode.UseBOM),
	UTF16BE: unicode.UTF16(unicode.BigEndian, unicode.UseBOM),
	Latin1:  charmap.ISO8859_1, "iso-8859-1": charmap.ISO8859_1, "latin-1": charmap.ISO8859_1,
	Windows1252: charmap.Windows1252, "cp1252": charmap.Windows1252,
}

// lookup returns the encoding a name names.
func lookup(name string) (encoding.Encoding, error) {
	e, ok := encodings[strings.ToLower(strings.TrimSpace(name))]
	if !ok {
		return nil, fmt.Errorf("%q is not a supported encoding: use %s", name, Names)
	}
	return e, nil
}

// Check returns an error when name is not a supported encoding.
func Check(name string) error {
	_, err := lookup(name)
	return err
}

// Decodes reports whether the named encoding is not UTF-8: its reader's
// bytes are not the file's.
func Decodes(name string) bool {
	e, _ := lookup(name)
	return e != nil
}

// NewReader returns r decoded to UTF-8 from the named encoding; for
// UTF-8 it returns r itself. The name must have passed Check.
func NewReader(name string, r io.Reader) io.Reader {
	e, _ := lookup(name)
	if e == nil {
		return r
	}
	return transform.NewReader(r, e.NewDecoder())
}

// Decode returns data decoded to UTF-8 from the named encoding; for
// UTF-8 it returns data itself. The name must have passed Check.
func Decode(name string, data []byte) ([]byte, error) {
	e, _ := lookup(name)
	if e == nil {
		return data, nil
	}
	out, _, err := transform.Bytes(e.NewDecoder(), data)
	return out, err
}

// Invalid is the reason given for a value that is not UTF-8.
func Invalid(at int) string {
	return fmt.Sprintf("not UTF-8 (an invalid byte at character %d of the value); set encoding (e.g. encoding: latin1 or windows-1252) to the file's encoding, or save the file as UTF-8", at)
}

// FirstInvalid returns the 1-based position, in characters, of the first
// byte of s that is not UTF-8, 0 when s is valid. (A hot loop calls
// utf8.ValidString first, which spares a call for each valid value.)
func FirstInvalid(s string) int {
	if utf8.ValidString(s) {
		return 0
	}
	n := 0
	for i, r := range s {
		n++
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return n
			}
		}
	}
	return 0
}

// UTF16Unset returns, for the first bytes of a file to be read as UTF-8,
// the error to give when they are UTF-16 (a UTF-16 byte order mark, or a
// NUL byte in the first line, which no text in UTF-8 has): read as UTF-8,
// such a file has no column or key anyone can recognize. nil otherwise.
func UTF16Unset(head []byte) error {
	line := head
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		line = head[:i]
	}
	if !bytes.HasPrefix(head, []byte{0xff, 0xfe}) && !bytes.HasPrefix(head, []byte{0xfe, 0xff}) && bytes.IndexByte(line, 0) < 0 {
		return nil
	}
	return fmt.Errorf("the file is UTF-16 (as Excel's \"Unicode Text\" saves it), read as UTF-8: set encoding: %s on this source, or save the file as UTF-8", UTF16)
}

// Words returns every name and alias an encoding key accepts (letter case
// ignored), sorted.
func Words() []string {
	var out []string
	for name := range encodings {
		if name != "" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
