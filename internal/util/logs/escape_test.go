package logs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/orgsync/orgsync/internal/util/termsafe"
)

// hostile is a group name that sets a terminal's title, rings its bell,
// turns its text red, reverses what follows and forges a log line.
const hostile = "\x1b]0;pwned\a\x1b[31mDesign\u202eevil\u009b2J\nFAKE\tERROR\tforged"

// TestLogLinesShowControlCharactersEscaped replays finding 7 of issue 33
// on the logs: a hostile group name in a message, a field and an error
// reaches neither a console line nor a JSON line raw; the JSON line reads
// back as the values logged; each entry is one line.
func TestLogLinesShowControlCharactersEscaped(t *testing.T) {
	t.Parallel()
	for _, format := range []string{FormatConsole, FormatJSON} {
		var buf bytes.Buffer
		log, err := New(termsafe.NewWriter(&buf), Options{}, format, "info")
		if err != nil {
			t.Fatal(err)
		}
		log.Info("planned: add "+hostile, zap.String("group", hostile), zap.Error(errors.New(hostile)),
			zap.Strings("groups", []string{hostile}))
		out := buf.String()
		if strings.Count(out, "\n") != 1 || !termsafe.Safe(out, termsafe.Text) {
			t.Errorf("%s: the line is not one line shown as data:\n%q", format, out)
		}
		if !strings.Contains(out, `\x1b]0;pwned`) {
			t.Errorf("%s: the escaped name is not in the line: %q", format, out)
		}
		if format != FormatJSON {
			continue
		}
		var back map[string]any
		if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back["group"] != hostile || back["error"] != hostile ||
			back["msg"] != "planned: add "+termsafe.String(hostile, termsafe.Line) {
			t.Errorf("the JSON line reads back as %q, %v", back, err)
		}
	}
}

// TestColourIsAddedAfterEscaping: on a terminal the level is coloured,
// and only the level: a colour a value tries to set is escaped.
func TestColourIsAddedAfterEscaping(t *testing.T) {
	t.Parallel()
	ec := zap.NewDevelopmentEncoderConfig()
	ec.EncodeTime = zapcore.TimeEncoderOfLayout("15:04:05")
	ec.EncodeLevel = zapcore.CapitalLevelEncoder
	var buf bytes.Buffer
	log := zap.New(zapcore.NewCore(escaping{zapcore.NewConsoleEncoder(ec), true}, zapcore.AddSync(&buf), zapcore.DebugLevel))
	log.Warn(hostile)
	out := buf.String()
	if !strings.Contains(out, "\t\x1b[33mWARN\x1b[0m\t") || strings.Count(out, "\x1b") != 2 || !strings.Contains(out, `\x1b[31mDesign`) {
		t.Errorf("coloured line %q", out)
	}
}

// secretError has a detail for the local log only.
type secretError struct{}

func (secretError) Error() string       { return "secret command vault failed with exit code 2" }
func (secretError) LocalDetail() string { return "its standard error: token hvs.XYZ expired" }

// TestLocalDetailGoesToTheLogOnly: a logged error with a local detail
// (wrapped or not) adds it to the line; its Error, which records and
// notifications use, has none of it.
func TestLocalDetailGoesToTheLogOnly(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log, err := New(&buf, Options{}, FormatJSON, "info")
	if err != nil {
		t.Fatal(err)
	}
	wrapped := fmt.Errorf("sources[0].ldap.password: %w", secretError{})
	log.Error("run failed", zap.Error(wrapped))
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil || line["errorDetail"] != "its standard error: token hvs.XYZ expired" {
		t.Errorf("log line %s (%v)", buf.String(), err)
	}
	if strings.Contains(wrapped.Error(), "hvs.XYZ") || DetailOf(wrapped) == "" || DetailOf(errors.New("x")) != "" {
		t.Errorf("Error %q, DetailOf %q", wrapped.Error(), DetailOf(wrapped))
	}
}
