package logs

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
)

func TestNewLogger(t *testing.T) {
	t.Parallel()
	tests := []struct {
		format, level string
		json          bool
		debugShown    bool
	}{
		{format: "auto", level: "info", json: true}, // a buffer is not a terminal
		{format: "json", level: "debug", json: true, debugShown: true},
		{format: "console", level: "warn"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		log, err := newLogger(&buf, tt.format, tt.level)
		if err != nil {
			t.Fatal(err)
		}
		log.Debug("dbg")
		log.Warn("hello")
		first := strings.SplitN(strings.TrimSpace(buf.String()), "\n", 2)[0]
		if isJSON := json.Valid([]byte(first)); isJSON != tt.json {
			t.Errorf("%s: JSON = %v, want %v: %q", tt.format, isJSON, tt.json, first)
		}
		if shown := strings.Contains(buf.String(), "dbg"); shown != tt.debugShown {
			t.Errorf("%s/%s: debug shown = %v", tt.format, tt.level, shown)
		}
	}
	for _, bad := range [][2]string{{"xml", "info"}, {"json", "loud"}} {
		if _, err := newLogger(&bytes.Buffer{}, bad[0], bad[1]); err == nil {
			t.Errorf("newLogger(%q, %q) accepted", bad[0], bad[1])
		}
	}
}

// TestLogFileRotates: with logging.file the logs go to the file (JSON, as
// it is no terminal), not to standard error, and a file over maxSizeMB is
// rotated, keeping at most maxBackups old files.
func TestLogFileRotates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := Options{Level: "info", Format: FormatAuto, File: filepath.Join(dir, "orgsync.log"), MaxSizeMB: 1, MaxBackups: 2}
	var stderr bytes.Buffer
	log, err := New(&stderr, cfg, "", "")
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("x", 1000)
	for i := 0; i < 4000; i++ { // about 4 MB: three rotations
		log.Info("filler", zap.Int("i", i), zap.String("text", line))
	}
	if stderr.Len() != 0 {
		t.Errorf("logs went to standard error too: %.200s", stderr.String())
	}
	current, err := os.ReadFile(cfg.File)
	if err != nil {
		t.Fatal(err)
	}
	if first := strings.SplitN(string(current), "\n", 2)[0]; !json.Valid([]byte(first)) || len(current) > 1<<20 {
		t.Errorf("current file: %d bytes, first line %.100q", len(current), first)
	}
	// Rotated files are compressed in the background: wait until it is done
	// (the last step removes the uncompressed file).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		old, _ := filepath.Glob(filepath.Join(dir, "orgsync-*.log*"))
		gz, _ := filepath.Glob(filepath.Join(dir, "orgsync-*.log.gz"))
		if len(old) == 2 && len(gz) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("rotated files %v, compressed %v: want two of each", old, gz)
		}
	}
}

// TestFlagsOverrideTheConfiguration: a format or level given (the command
// line's) wins over the configuration's.
func TestFlagsOverrideTheConfiguration(t *testing.T) {
	t.Parallel()
	cfg := Options{Format: FormatConsole, Level: "error"}
	var buf bytes.Buffer
	log, err := New(&buf, cfg, "json", "debug")
	if err != nil {
		t.Fatal(err)
	}
	log.Debug("dbg")
	if !json.Valid(bytes.TrimSpace(buf.Bytes())) || !strings.Contains(buf.String(), "dbg") {
		t.Errorf("want a JSON debug line, got %q", buf.String())
	}
	buf.Reset()
	if log, err = New(&buf, cfg, "", ""); err != nil {
		t.Fatal(err)
	}
	log.Warn("quiet")
	if buf.Len() != 0 {
		t.Errorf("the configuration's level error let a warning through: %q", buf.String())
	}
}
