package main

import (
	"context"
	"flag"

	"github.com/orgsync/orgsync/internal/demo/simserver"
)

// runSim serves the simulator until SIGTERM or SIGINT, then saves the state
// when asked.
func runSim(ctx context.Context, std stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync sim", flag.ContinueOnError)
	h := simserver.Host{}
	h.AddFlags(fs)
	lf := addLogFlags(fs)
	if code, ok := parseFlags(fs, args, std, 0); !ok {
		return code
	}
	log, err := lf.logger(std.err, nil)
	if err != nil {
		return fail(std, fs.Name(), err)
	}
	h.Log = log
	if err := h.Run(ctx); err != nil {
		return fail(std, fs.Name(), err)
	}
	return exitOK
}
