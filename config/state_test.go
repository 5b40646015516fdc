package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStateAndOnLimitDefaults(t *testing.T) {
	t.Parallel()
	cfg := loadText(t, minimal+"state: {dir: state}\n")
	if cfg.Safety.OnLimit != OnLimitHold || cfg.State.MaxFileMB != DefaultStateMaxFileMB || cfg.State.Retention != Age(DefaultStateRetention) {
		t.Errorf("defaults: safety %+v, state %+v", cfg.Safety, cfg.State)
	}
	if want := filepath.Join(filepath.Dir(cfg.File), "state"); cfg.State.Dir != want {
		t.Errorf("state.dir %q, want %q (relative to the configuration's directory)", cfg.State.Dir, want)
	}
	cfg = loadText(t, minimal+"safety: {onLimit: stop}\nstate: {dir: s, maxFileMB: 1, retention: 24h}\n")
	if cfg.SafetyOf(cfg.Primary()).OnLimit != OnLimitStop || cfg.State.Retention != Age(24*time.Hour) {
		t.Errorf("set: safety %+v, state %+v", cfg.Safety, cfg.State)
	}
}

func TestStateAndOnLimitProblems(t *testing.T) {
	t.Parallel()
	err := loadError(t, minimal+"safety: {onLimit: pause}\nstate: {dir: no/such/dir/state, maxFileMB: -1}\n")
	for _, want := range []string{
		`safety.onLimit (line 14): "pause"`,
		"state.dir (line 15): the directory above",
		"state.maxFileMB (line 15): must be greater than zero",
	} {
		if !strings.Contains(err, want) {
			t.Errorf("want %q in:\n%s", want, err)
		}
	}
}

// TestStateRetentionInDays: state.retention takes days, as history
// --since does.
func TestStateRetentionInDays(t *testing.T) {
	t.Parallel()
	if cfg := loadText(t, minimal+"state: {dir: s, retention: 30d}\n"); time.Duration(cfg.State.Retention) != 30*24*time.Hour {
		t.Errorf("retention 30d: %v", time.Duration(cfg.State.Retention))
	}
	if err := loadError(t, minimal+"state: {dir: s, retention: 30 days}\n"); !strings.Contains(err, "state.retention (line 14): want a duration such as 90m, 24h or 7d") {
		t.Errorf("retention in words: %s", err)
	}
}

// TestZeroIsNotTheDefault: a zero written for state.retention,
// state.maxFileMB or incremental.fullEvery is refused, not silently taken
// for the default (a file that says nothing gets the default).
func TestZeroIsNotTheDefault(t *testing.T) {
	t.Parallel()
	err := loadError(t, minimal+"state: {dir: s, maxFileMB: 0, retention: 0s}\nincremental: {enabled: true, fullEvery: 0h}\n")
	for _, want := range []string{
		"state.maxFileMB (line 14): must be greater than zero",
		"state.retention (line 14): must be greater than zero",
		"incremental.fullEvery (line 15): must be greater than zero",
	} {
		if !strings.Contains(err, want) {
			t.Errorf("want %q in:\n%s", want, err)
		}
	}
	if cfg := loadText(t, minimal+"state: {dir: s}\nincremental: {enabled: true}\n"); cfg.Incremental.FullEvery != Age(DefaultFullEvery) {
		t.Errorf("fullEvery left out: %v, want the default", time.Duration(cfg.Incremental.FullEvery))
	}
}
