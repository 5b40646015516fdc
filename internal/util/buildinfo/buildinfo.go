// Package buildinfo says which orgsync this is: the version, the commit
// and its time, the build date and the Go version, from what the linker
// set and the binary's build information.
package buildinfo

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Line is "orgsync VERSION (commit C of TIME, built DATE, GOVERSION)"
// from what the linker set and the binary's build information (nil when
// unknown): the commit (with "-dirty" when the tree had changes) and its
// time come from the Go toolchain's version-control stamp, so that any
// build from a git checkout names its commit, else from the linker's
// commit. A version left "dev" takes the module's version (set by `go
// install ...@v1.2.3`). Parts that are not known are left out.
func Line(version, commit, buildDate string, bi *debug.BuildInfo) string {
	var parts []string
	if bi != nil {
		if version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			version = bi.Main.Version
		}
		if c := vcsCommit(bi); c != "" {
			commit = c
		}
	}
	if commit != "" {
		parts = append(parts, "commit "+commit)
	}
	if buildDate != "" {
		parts = append(parts, "built "+buildDate)
	}
	if bi != nil {
		parts = append(parts, bi.GoVersion)
	}
	if len(parts) == 0 {
		return "orgsync " + version
	}
	return fmt.Sprintf("orgsync %s (%s)", version, strings.Join(parts, ", "))
}

// vcsCommit returns "abcdef123456[-dirty] of 2026-11-23T09:00:00Z" from the
// build's version-control settings, or "" when the build has none.
func vcsCommit(bi *debug.BuildInfo) string {
	var rev, at string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return ""
	}
	rev = rev[:min(len(rev), 12)]
	if dirty {
		rev += "-dirty"
	}
	if at != "" {
		rev += " of " + at
	}
	return rev
}
