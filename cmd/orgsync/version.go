package main

import (
	"context"
	"flag"
	"fmt"
	"runtime/debug"

	"github.com/orgsync/orgsync/internal/util/buildinfo"
)

// version, commit and buildDate are set at build time by `make build`:
// -ldflags "-X main.version=v1.2.3 -X main.commit=<hash> -X
// main.buildDate=2026-11-23T09:00:00Z". The commit is a fallback for builds
// that the Go toolchain does not stamp (GOFLAGS=-buildvcs=false, a git
// worktree).
var (
	version   = "dev"
	commit    = ""
	buildDate = ""
)

// runVersion prints the version, commit, dates and Go version.
func runVersion(_ context.Context, std stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync version", flag.ContinueOnError)
	if code, ok := parseFlags(fs, args, std, 0); !ok {
		return code
	}
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprintln(std.out, buildinfo.Line(version, commit, buildDate, bi))
	return exitOK
}
