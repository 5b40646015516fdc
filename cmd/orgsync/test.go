package main

import (
	"context"
	"errors"
	"flag"
	"math"

	"github.com/orgsync/orgsync/internal/admin/mappingtest"
)

// runTest runs mapping tests: each file's expectations of what its
// configuration gives which user, offline (see package mappingtest).
func runTest(ctx context.Context, std stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync test", flag.ContinueOnError)
	if code, ok := parseFlags(fs, args, std, math.MaxInt); !ok {
		return code
	}
	if fs.NArg() == 0 {
		return fail(std, fs.Name(), errors.New("name the test files (orgsync test orgsync.test.yaml; see docs/configuration.md#mapping-tests)"))
	}
	code := exitOK
	for _, file := range fs.Args() {
		r, err := mappingtest.Run(ctx, file, std.out)
		if err != nil {
			printError(std, fs.Name(), err)
			code = exitError
		} else if r.Failed > 0 {
			code = exitError
		}
	}
	return code
}
