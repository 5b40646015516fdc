package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/orgsync/orgsync/internal/demo/starter"
)

// runInit writes a commented starter configuration for one kind of source
// (--source KIND, or KIND as its argument).
func runInit(_ context.Context, std stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync init", flag.ContinueOnError)
	source := fs.String("source", "csv", "the kind of source: "+starter.Kinds())
	output := fs.String("output", starter.ConfigName, `the file to write ("-": standard output)`)
	force := fs.Bool("force", false, "overwrite the file when it exists")
	if code, ok := parseFlags(fs, args, std, 1); !ok {
		return code
	}
	if fs.NArg() == 1 { // orgsync init ldap: the kind without --source
		*source = fs.Arg(0)
	}
	text, err := starter.Config(*source, *output)
	if err != nil {
		return fail(std, fs.Name(), err)
	}
	if *output == "-" {
		fmt.Fprint(std.out, text)
		return exitOK
	}
	if err := starter.WriteNew(*output, []byte(text), *force); err != nil {
		return fail(std, fs.Name(), err)
	}
	fmt.Fprintf(std.out, "wrote %s: fill in what is marked FILL IN, then run orgsync validate --config %s\n", *output, *output)
	return exitOK
}
