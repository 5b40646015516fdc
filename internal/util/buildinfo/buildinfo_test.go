package buildinfo

import (
	"runtime/debug"
	"testing"
)

// TestVersionLine: the commit and its time come from the build's
// version-control stamp (a git build never says "unknown"), the linker's
// commit is the fallback, and unknown parts are left out.
func TestVersionLine(t *testing.T) {
	t.Parallel()
	stamped := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "9cfff093f44ce13ad13b3cd45705edf1e5fa7c7e"},
		{Key: "vcs.time", Value: "2026-11-23T09:21:01Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	tests := []struct {
		version, commit, date string
		bi                    *debug.BuildInfo
		want                  string
	}{
		{"v1.2.0", "", "2026-11-23T10:00:00Z", stamped,
			"orgsync v1.2.0 (commit 9cfff093f44c-dirty of 2026-11-23T09:21:01Z, built 2026-11-23T10:00:00Z, go1.26.8)"},
		{"dev", "abc123", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			"orgsync dev (commit abc123, go1.26.8)"},
		{"dev", "", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.3.0"}},
			"orgsync v1.3.0 (go1.26.8)"},
		{"dev", "", "", nil, "orgsync dev"},
	}
	for _, tt := range tests {
		if got := Line(tt.version, tt.commit, tt.date, tt.bi); got != tt.want {
			t.Errorf("Line(%q, %q, %q) = %q, want %q", tt.version, tt.commit, tt.date, got, tt.want)
		}
	}
}
