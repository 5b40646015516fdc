package logs

import (
	"errors"

	"go.uber.org/zap"
	"go.uber.org/zap/buffer"
	"go.uber.org/zap/zapcore"

	"github.com/orgsync/orgsync/internal/util/termsafe"
)

// LocalDetail is an error with a detail for the local log and nowhere
// else: run records, /healthz and notifications show its Error, which
// leaves the detail out (a secret command's standard error, which may
// quote the secret manager's token). A log line carrying such an error
// (zap.Error) adds the detail under the error's key and "Detail".
type LocalDetail interface {
	error
	LocalDetail() string
}

// DetailOf returns the local detail of err (LocalDetail), "" when it has
// none: for a command that prints an error on its own standard error.
func DetailOf(err error) string {
	var d LocalDetail
	if errors.As(err, &d) {
		return d.LocalDetail()
	}
	return ""
}

// escaping is an encoder whose lines are shown as data on a terminal: a
// message cannot end its line, and every control character a message or
// a field carries is escaped (termsafe), in console and JSON lines alike
// (JSON's escapes of C0 controls are kept; the C1 controls and the
// bidirectional overrides it leaves become \u escapes, which JSON reads
// back as the same characters). With colour, the level is coloured after
// the line is escaped.
type escaping struct {
	zapcore.Encoder
	colour bool
}

// Clone clones the encoder under e, escaping.
func (e escaping) Clone() zapcore.Encoder { return escaping{e.Encoder.Clone(), e.colour} }

// EncodeEntry encodes the entry with the local details of its errors,
// then escapes the line.
func (e escaping) EncodeEntry(ent zapcore.Entry, fields []zapcore.Field) (*buffer.Buffer, error) {
	ent.Message = termsafe.String(ent.Message, termsafe.Line)
	for _, f := range fields {
		if err, ok := f.Interface.(error); ok && f.Type == zapcore.ErrorType {
			if d := DetailOf(err); d != "" {
				fields = append(fields[:len(fields):len(fields)], zap.String(f.Key+"Detail", d))
			}
		}
	}
	buf, err := e.Encoder.EncodeEntry(ent, fields)
	if err != nil || termsafe.Safe(buf.Bytes(), termsafe.Text) && !e.colour {
		return buf, err
	}
	line := termsafe.Append(make([]byte, 0, buf.Len()+32), buf.Bytes(), termsafe.Text)
	if e.colour {
		line = colourLevel(line, ent.Level)
	}
	buf.Reset()
	_, _ = buf.Write(line)
	return buf, nil
}

// colourLevel colours the level of a console line, its second field
// (after the time), as zap's CapitalColorLevelEncoder does.
func colourLevel(line []byte, l zapcore.Level) []byte {
	start := indexByte(line, '\t', 0) + 1
	end := indexByte(line, '\t', start)
	if start == 0 || end < 0 {
		return line
	}
	colour := map[zapcore.Level]string{zapcore.DebugLevel: "35", zapcore.InfoLevel: "34", zapcore.WarnLevel: "33"}[l]
	if colour == "" {
		colour = "31" // error and worse: red
	}
	out := make([]byte, 0, len(line)+12)
	out = append(out, line[:start]...)
	out = append(out, "\x1b["+colour+"m"...)
	out = append(out, line[start:end]...)
	out = append(out, "\x1b[0m"...)
	return append(out, line[end:]...)
}

// indexByte is the index of c in b from from on, -1 when absent.
func indexByte(b []byte, c byte, from int) int {
	for i := from; i < len(b); i++ {
		if b[i] == c {
			return i
		}
	}
	return -1
}
