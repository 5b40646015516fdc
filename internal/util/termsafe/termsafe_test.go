package termsafe

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in               string
		text, line, cell string
	}{
		{"plain café ✓", "plain café ✓", "plain café ✓", "plain café ✓"},
		{"\x1b]0;pwned\a", `\x1b]0;pwned\a`, `\x1b]0;pwned\a`, `\x1b]0;pwned\a`},
		{"red\x1b[31m", `red\x1b[31m`, `red\x1b[31m`, `red\x1b[31m`},
		{"a\nb\tc", "a\nb\tc", "a\\nb\tc", `a\nb\tc`},
		{"cr\rover", `cr\rover`, `cr\rover`, `cr\rover`},
		{"crlf\r\nx\r", "crlf\r\nx\\r", `crlf\r\nx\r`, `crlf\r\nx\r`},
		{"csi\u009b2J", `csi\u009b2J`, `csi\u009b2J`, `csi\u009b2J`},
		{"del\x7f", `del\u007f`, `del\u007f`, `del\u007f`},
		{"evil\u202egpj.exe", `evil\u202egpj.exe`, `evil\u202egpj.exe`, `evil\u202egpj.exe`},
		{"iso\u2066x\u2069", `iso\u2066x\u2069`, `iso\u2066x\u2069`, `iso\u2066x\u2069`},
		{"ls\u2028x", `ls\u2028x`, `ls\u2028x`, `ls\u2028x`},
		{"bad\xff\xc3", `bad\xff\xc3`, `bad\xff\xc3`, `bad\xff\xc3`},
		{"nul\x00", `nul\x00`, `nul\x00`, `nul\x00`},
		{"back\\slash", `back\slash`, `back\slash`, `back\slash`},
		{"\ufffd is data", "\ufffd is data", "\ufffd is data", "\ufffd is data"},
	} {
		for mode, want := range map[Mode]string{Text: tc.text, Line: tc.line, Cell: tc.cell} {
			if got := String(tc.in, mode); got != want {
				t.Errorf("String(%q, %d) = %q, want %q", tc.in, mode, got, want)
			}
		}
	}
}

// TestWriterEscapesACharacterSplitAcrossWrites: a bidirectional override
// and a C1 control written a byte at a time are escaped whole, a valid
// character split so is written as it is, and Flush escapes the start of
// a character that never ends.
func TestWriterEscapesACharacterSplitAcrossWrites(t *testing.T) {
	t.Parallel()
	in := "é\u202e\u009b✓\r\n\r✓"
	var b bytes.Buffer
	w := NewWriter(&b)
	for i := range len(in) {
		if n, err := w.Write([]byte{in[i]}); n != 1 || err != nil {
			t.Fatalf("Write: %d, %v", n, err)
		}
	}
	_, _ = w.Write([]byte("\xe2\x80"))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := "é\\u202e\\u009b✓\r\n\\r✓\\xe2\\x80"; b.String() != want {
		t.Errorf("written %q, want %q", b.String(), want)
	}
	if NewWriter(w) != w || Underlying(w) != &b || Underlying(&b) != &b {
		t.Error("a Writer is wrapped again, or Underlying does not see through it")
	}
}

// TestJSONThroughTheWriterDecodesTheSame: what encoding/json leaves raw
// (C1 controls, bidi overrides, DEL) becomes a \u escape, which JSON reads
// back as the same character.
func TestJSONThroughTheWriterDecodesTheSame(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	w := NewWriter(&b)
	in, _ := json.Marshal(map[string]string{"name": "a\u202e\u0085\x7fb\x1b"})
	_, _ = w.Write(in)
	var back map[string]string
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["name"] != "a\u202e\u0085\x7fb\x1b" || bytes.Equal(in, b.Bytes()) {
		t.Errorf("JSON through the writer %s reads back %q, %v", b.String(), back["name"], err)
	}
}

// FuzzString: whatever the input, the output of each mode has no control
// character it must not have, no bidirectional control and no byte that
// is not UTF-8; read back as a Go string literal it is the input (for an
// input without backslashes, which are data and not escaped); and a
// Writer given the input in two writes, split anywhere, writes the same
// as String in Text mode.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "Design", "\x1b]0;title\a", "\x1b[2J\x1b[H", "a\tb\nc\rd", "\u009b31m", "\u202eevil",
		"\xff\xfe", "é\u2066", "\xe2\x80", "line\u2028break", "\x7f", "日本語"} {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, s string, split int) {
		for _, mode := range []Mode{Text, Line, Cell} {
			out := String(s, mode)
			if !utf8.ValidString(out) {
				t.Fatalf("String(%q, %d) = %q: not UTF-8", s, mode, out)
			}
			for i, r := range out {
				if unsafe(r, mode) && !lineEnd(out, i, mode) {
					t.Fatalf("String(%q, %d) = %q: holds %U", s, mode, out, r)
				}
			}
			if !strings.Contains(s, `\`) {
				lit := strings.NewReplacer(`"`, `\"`, "\r", `\r`, "\n", `\n`, "\t", `\t`).Replace(out)
				if back, err := strconv.Unquote(`"` + lit + `"`); err != nil || back != s {
					t.Fatalf("String(%q, %d) = %q reads back as %q, %v", s, mode, out, back, err)
				}
			}
		}
		var b bytes.Buffer
		w := NewWriter(&b)
		cut := 0
		if len(s) > 0 {
			cut = ((split % len(s)) + len(s)) % len(s)
		}
		_, _ = w.Write([]byte(s[:cut]))
		_, _ = w.Write([]byte(s[cut:]))
		_ = w.Flush()
		if want := String(s, Text); b.String() != want {
			t.Fatalf("the Writer wrote %q for %q split at %d; String: %q", b.String(), s, cut, want)
		}
	})
}

// BenchmarkWriter: a plan's worth of plain lines (the common case: no
// escape needed) and the same with a control character on every line,
// written through a Writer in bufio-sized chunks.
func BenchmarkWriter(b *testing.B) {
	line := "~ update someone.long-name@example.com (federatedID) groups: +Engineering +Acrobat Pro -Design\n"
	for name, text := range map[string]string{"plain": strings.Repeat(line, 10000), "escaped": strings.Repeat("\x1b[31m"+line, 10000)} {
		b.Run(name, func(b *testing.B) {
			var chunks [][]byte
			for i := 0; i < len(text); i += 4096 {
				chunks = append(chunks, []byte(text[i:min(i+4096, len(text))]))
			}
			b.SetBytes(int64(len(text)))
			w := NewWriter(io.Discard)
			for b.Loop() {
				for _, c := range chunks {
					_, _ = w.Write(c)
				}
			}
		})
	}
}
