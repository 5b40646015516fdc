package config

import (
	"strings"
	"testing"
	"time"
)

func TestIncremental(t *testing.T) {
	t.Parallel()
	cfg := loadText(t, minimal)
	if cfg.Incremental.Enabled || cfg.Incremental.FullEvery != Age(DefaultFullEvery) {
		t.Errorf("defaults: %+v", cfg.Incremental)
	}
	cfg = loadText(t, minimal+"state: {dir: s}\nincremental: {enabled: true, fullEvery: 1d}\n")
	if !cfg.Incremental.Enabled || cfg.Incremental.FullEvery != Age(24*time.Hour) || len(cfg.Warnings) != 0 {
		t.Errorf("set: %+v, warnings %v", cfg.Incremental, cfg.Warnings)
	}
}

func TestIncrementalProblems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ text, want string }{
		{"incremental: {enabled: true}\n", "incremental.enabled (line 14): incremental runs keep a snapshot of each organization in the state directory: set state.dir"},
		{"state: {dir: s}\nincremental: {enabled: true, fullEvery: -1h}\n", "incremental.fullEvery (line 15): want a duration such as 90m, 24h or 7d"},
		{"state: {dir: s}\nincremental: {enabled: true, fullEvery: 1 day}\n", "incremental.fullEvery (line 15): want a duration such as 90m, 24h or 7d"},
		{"state: {dir: s}\nincremental: {enable: true}\n", "incremental.enable (line 15)"},
	} {
		if err := loadError(t, minimal+tc.text); !strings.Contains(err, tc.want) {
			t.Errorf("%q: want %q in:\n%s", tc.text, tc.want, err)
		}
	}
	cfg := loadText(t, minimal+"state: {dir: s}\nincremental: {enabled: true, fullEvery: 2h}\n")
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0].String(), "incremental.fullEvery (line 15): 2h0m0s is not longer than the 2h0m0s between the daemon's runs") {
		t.Errorf("warnings: %v", cfg.Warnings)
	}
}
