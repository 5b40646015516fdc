package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestNewLogger(t *testing.T) {
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
