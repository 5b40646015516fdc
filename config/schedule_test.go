package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestScheduleTimezone: schedule.timezone places the cron expression in
// that zone; a zone that does not exist, or one set twice, is reported
// with its path and line.
func TestScheduleTimezone(t *testing.T) {
	t.Parallel()
	cfg := loadText(t, minimal+"schedule:\n  cron: \"0 2 * * *\"\n  timezone: Asia/Tokyo\n")
	sched, err := cfg.Schedule.Parse()
	if err != nil {
		t.Fatal(err)
	}
	next := sched.Next(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if want := time.Date(2026, 1, 1, 17, 0, 0, 0, time.UTC); !next.Equal(want) { // 02:00 in Tokyo is 17:00 UTC
		t.Errorf("next run %s, want %s", next.UTC(), want)
	}
	cfg = loadText(t, minimal+"schedule:\n  cron: \"CRON_TZ=Asia/Tokyo 0 2 * * *\"\n")
	if sched, err = cfg.Schedule.Parse(); err != nil || !sched.Next(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)).Equal(time.Date(2026, 1, 1, 17, 0, 0, 0, time.UTC)) {
		t.Errorf("CRON_TZ prefix not honoured: %v", err)
	}
	for text, want := range map[string]string{
		"schedule:\n  timezone: Europe/Berln\n":                                     `schedule.timezone (line 15): "Europe/Berln" is not a time zone: use an IANA name`,
		"schedule:\n  cron: \"CRON_TZ=UTC 0 2 * * *\"\n  timezone: Europe/Berlin\n": "schedule.timezone (line 16): schedule.cron names its time zone already",
	} {
		if err := loadError(t, minimal+text); !strings.Contains(err, want) {
			t.Errorf("want %q in:\n%s", want, err)
		}
	}
}

// TestLoggingFile: the log file's path is relative to the configuration,
// the rotation settings have defaults and are checked.
func TestLoggingFile(t *testing.T) {
	t.Parallel()
	cfg := loadText(t, minimal+"logging:\n  file: orgsync.log\n")
	l := cfg.Logging
	if filepath.Base(l.File) != "orgsync.log" || !filepath.IsAbs(l.File) || l.MaxSizeMB != DefaultLogMaxSizeMB || l.MaxBackups != DefaultLogMaxBackups || l.MaxAgeDays != 0 {
		t.Errorf("logging = %+v", l)
	}
	if cfg = loadText(t, minimal+"logging:\n  maxBackups: 0\n"); cfg.Logging.MaxBackups != 0 {
		t.Errorf("an explicit maxBackups: 0 became %d", cfg.Logging.MaxBackups)
	}
	err := loadError(t, minimal+"logging:\n  file: no/such/dir/orgsync.log\n  maxSizeMB: 0\n  maxAgeDays: -1\n")
	for _, want := range []string{"logging.file (line 15): the directory of", "logging.maxSizeMB (line 16): must be greater than zero", "logging.maxAgeDays (line 17): must not be negative"} {
		if !strings.Contains(err, want) {
			t.Errorf("want %q in:\n%s", want, err)
		}
	}
}

// loadText loads a configuration (with its private key and CSV file).
func loadText(t *testing.T, text string) *Config {
	t.Helper()
	dir := write(t, map[string]string{"c.yaml": text, "key.pem": "KEY", "users.csv": "email\n"}, 0o600)
	cfg, err := Load(filepath.Join(dir, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// loadError loads a configuration that must fail and returns the error.
func loadError(t *testing.T, text string) string {
	t.Helper()
	return loadProblems(t, map[string]string{"c.yaml": text, "key.pem": "KEY", "users.csv": "email\n"}).Error()
}

// TestCronStepOutOfRange: a step larger than its field (*/70 in the
// minutes, which the cron parser reads as "at minute 0") is refused,
// naming the field; the steps a field can take pass.
func TestCronStepOutOfRange(t *testing.T) {
	t.Parallel()
	for expr, want := range map[string]string{
		"*/70 * * * *":                      "*/70: step 70 is out of range: the minute field has 60 values",
		"0 */24 * * *":                      "the hour field has 24 values",
		"0 0 1-31/31 * *":                   "the day of month field has 31 values",
		"CRON_TZ=Europe/Berlin 0 0 * * */7": "the day of week field has 7 values",
	} {
		if _, err := ParseSchedule(expr); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", expr, err, want)
		}
	}
	for _, expr := range []string{"*/59 * * * *", "0 */23 * * *", "@every 2h", "@hourly", "0,30 */2 * * 1-5/2"} {
		if _, err := ParseSchedule(expr); err != nil {
			t.Errorf("%q: %v", expr, err)
		}
	}
	if err := loadError(t, minimal+"schedule: {cron: \"*/70 * * * *\"}\n"); !strings.Contains(err, "schedule.cron (line 14)") || !strings.Contains(err, "step 70") {
		t.Errorf("a configuration with */70: %s", err)
	}
}
