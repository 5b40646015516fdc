package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/orgsync/orgsync/config"
)

// runSchema prints the JSON Schema of the configuration file, for editors
// (the yaml-language-server modeline) and CI.
func runSchema(_ context.Context, std stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync schema", flag.ContinueOnError)
	if code, ok := parseFlags(fs, args, std, 0); !ok {
		return code
	}
	data, err := config.Schema()
	if err != nil {
		return fail(std, fs.Name(), err)
	}
	fmt.Fprintf(std.out, "%s\n", data)
	return exitOK
}
