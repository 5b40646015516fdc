package config

import (
	"testing"
	"time"
)

func TestParseAge(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{"90m": 90 * time.Minute, "24h": 24 * time.Hour, "7d": 7 * 24 * time.Hour, "0d": 0} {
		if got, err := ParseAge(in); err != nil || got != want {
			t.Errorf("ParseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "d", "-1d", "-5h", "1w", "x7d", "9999999999999d", "106752d"} {
		if d, err := ParseAge(in); err == nil {
			t.Errorf("ParseAge(%q) = %v, want an error", in, d)
		}
	}
}

// FuzzParseAge: any text gives an error or a duration that is not
// negative.
func FuzzParseAge(f *testing.F) {
	for _, s := range []string{"7d", "24h", "106751d", "-1d", "1e9h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := ParseAge(s); err == nil && d < 0 {
			t.Fatalf("ParseAge(%q) = %v", s, d)
		}
	})
}
