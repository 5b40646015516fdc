package main

import (
	"context"
	"flag"
	"fmt"
	"runtime/debug"
)

// version is set at build time: -ldflags "-X main.version=v1.2.3".
var version = "dev"

// runVersion prints the version, commit and Go version.
func runVersion(_ context.Context, io stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync version", flag.ContinueOnError)
	if ok, code := parseFlags(fs, args, io, 0); !ok {
		return code
	}
	fmt.Fprintf(io.out, "orgsync %s%s\n", version, buildInfo())
	return exitOK
}

// buildInfo returns " (commit …, go…)" from the binary's build information.
func buildInfo() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	commit := "unknown"
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			commit = s.Value[:12]
		}
	}
	return fmt.Sprintf(" (commit %s, %s)", commit, bi.GoVersion)
}
