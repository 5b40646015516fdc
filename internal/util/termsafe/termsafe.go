// Package termsafe shows text on a terminal as data: the control
// characters a value from a directory or a server may carry (ESC, BEL and
// the other C0 controls, DEL, the C1 controls, bidirectional overrides,
// line and paragraph separators) and bytes that are not UTF-8 are written
// as Go-style escapes (\x1b, \a, \u202e, \xff), so that no value sets the
// terminal's title or colours, moves its cursor, reorders what it shows or
// forges a line.
//
// Writer is the chokepoint of orgsync's command output: every byte a
// command writes to its standard output and error goes through one. An
// escape of a character that is not ASCII is \u followed by four
// hexadecimal digits, valid JSON inside a string, so JSON output read
// through a Writer decodes to the same values.
package termsafe

import (
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// Mode says which layout characters pass unescaped.
type Mode int

// The modes.
const (
	// Text keeps newlines (a CRLF line ending too: a carriage return
	// before a newline only) and tabs: multi-line output and tables.
	Text Mode = iota
	// Line keeps tabs only: one line of a log or a mail, which a newline
	// in a value must not end.
	Line
	// Cell keeps neither: one cell of a table or one field.
	Cell
)

// String returns s with every character unsafe on a terminal escaped, for
// output laid out as mode says.
func String(s string, mode Mode) string {
	if Safe(s, mode) {
		return s
	}
	return string(Append(make([]byte, 0, len(s)+16), s, mode))
}

// Safe reports whether s needs no escape in mode (the common case,
// checked without allocating).
func Safe[T ~string | ~[]byte](s T, mode Mode) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f || lineEnd(s, i, mode) {
			i++
			continue
		}
		r, n := decode(s[i:])
		if r == utf8.RuneError && n == 1 || unsafe(r, mode) {
			return false
		}
		i += n
	}
	return true
}

// lineEnd reports whether s[i] is the carriage return of a CRLF line
// ending, which Text keeps.
func lineEnd[T ~string | ~[]byte](s T, i int, mode Mode) bool {
	return mode == Text && s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n'
}

// Append appends s to dst with every character unsafe on a terminal
// escaped (see String).
func Append[T ~string | ~[]byte](dst []byte, s T, mode Mode) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f || lineEnd(s, i, mode) {
			dst = append(dst, c)
			i++
			continue
		}
		r, n := decode(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			dst = appendByte(dst, c)
		case unsafe(r, mode):
			dst = appendRune(dst, r)
		default:
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return dst
}

// decode is utf8.DecodeRune for either a string or bytes.
func decode[T ~string | ~[]byte](s T) (rune, int) {
	var p [utf8.UTFMax]byte
	return utf8.DecodeRune(p[:copy(p[:], s[:min(len(s), utf8.UTFMax)])])
}

// unsafe reports whether r must be escaped in mode.
func unsafe(r rune, mode Mode) bool {
	switch {
	case r == '\n':
		return mode != Text
	case r == '\t':
		return mode == Cell
	case r < 0x20, r >= 0x7f && r < 0xa0: // C0, DEL, C1
		return true
	}
	return isFormatting(r)
}

// isFormatting reports whether r reorders or breaks what a terminal
// shows: the bidirectional controls (Unicode's Bidi_Control property:
// the marks, embeddings, overrides and isolates) and the line and
// paragraph separators.
func isFormatting(r rune) bool {
	switch {
	case r == 0x061c, r == 0x200e, r == 0x200f: // arabic letter mark, LRM, RLM
	case r >= 0x202a && r <= 0x202e: // LRE, RLE, PDF, LRO, RLO
	case r >= 0x2066 && r <= 0x2069: // LRI, RLI, FSI, PDI
	case r == 0x2028, r == 0x2029: // line and paragraph separators
	default:
		return false
	}
	return true
}

const hex = "0123456789abcdef"

// appendByte appends the escape of a C0 control or of a byte that is
// not UTF-8: \a \b \f \n \r \t \v, else \xNN.
func appendByte(dst []byte, c byte) []byte {
	if i := strings.IndexByte("\a\b\f\n\r\t\v", c); i >= 0 {
		return append(dst, '\\', "abfnrtv"[i])
	}
	return append(dst, '\\', 'x', hex[c>>4], hex[c&0xf])
}

// appendRune appends the escape of r: a C0 control as appendByte does,
// anything else as \uNNNN (JSON's form too).
func appendRune(dst []byte, r rune) []byte {
	if r < 0x20 {
		return appendByte(dst, byte(r))
	}
	return append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}

// Writer escapes what is written through it as String does in Text mode
// and writes it to the underlying writer. A character split across two
// writes is escaped as a whole: the bytes that start it wait for the
// next write, or for Flush. A Writer is safe to use from several
// goroutines.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	pending []byte // the start of a character not yet complete
	buf     []byte
}

// NewWriter returns a Writer writing to w. A *Writer given to NewWriter
// is returned as it is: escaped text needs no second escape.
func NewWriter(w io.Writer) *Writer {
	if tw, ok := w.(*Writer); ok {
		return tw
	}
	return &Writer{w: w}
}

// Write escapes p and writes it. It returns len(p) when the escaped text
// was written (or held, for an incomplete character at its end).
func (t *Writer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	in := p
	if len(t.pending) > 0 {
		in = append(t.pending, p...)
		t.pending = nil
	}
	cut := incompleteTail(in)
	out := in[:cut]
	if !Safe(out, Text) {
		t.buf = Append(t.buf[:0], out, Text)
		out = t.buf
	}
	if cut < len(in) {
		t.pending = append([]byte(nil), in[cut:]...)
	}
	if len(out) == 0 {
		return len(p), nil
	}
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// incompleteTail returns where the incomplete character at the end of p
// starts (len(p) when there is none): a lead byte of a UTF-8 sequence
// among the last three bytes, followed by fewer bytes than it needs, or
// a carriage return that a newline may follow.
func incompleteTail(p []byte) int {
	if len(p) > 0 && p[len(p)-1] == '\r' {
		return len(p) - 1
	}
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax+1; i-- {
		c := p[i]
		if c < 0x80 {
			return len(p)
		}
		if c >= 0xc0 { // a lead byte
			if utf8.FullRune(p[i:]) {
				return len(p)
			}
			return i
		}
	}
	return len(p)
}

// Flush writes what waits for the rest of a character, escaped as bytes
// that are not UTF-8 (the rest will not come).
func (t *Writer) Flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.pending) == 0 {
		return nil
	}
	out := Append(nil, t.pending, Text)
	t.pending = nil
	_, err := t.w.Write(out)
	return err
}

// Underlying returns w, or the writer under it when w is a *Writer: for
// a caller that escapes what it writes itself (the logger, which colours
// its levels) or asks whether it writes to a terminal.
func Underlying(w io.Writer) io.Writer {
	if t, ok := w.(*Writer); ok {
		return t.w
	}
	return w
}
