package view

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
)

// Usage lists the commands with their summaries (by name).
func Usage(w io.Writer, summaries map[string]string) {
	names := slices.Sorted(maps.Keys(summaries))
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	fmt.Fprintln(w, "usage: orgsync <command> [flags] [arguments]   (orgsync help <command>, or orgsync <command> -h, for its flags)")
	fmt.Fprintln(w, "\ncommands:")
	for _, n := range names {
		fmt.Fprintf(w, "  %-*s %s\n", width, n, summaries[n])
	}
	fmt.Fprintln(w, "\norgsync --version prints the version.")
}

// arguments are the arguments of the commands that take some, as their
// usage names them, by flag set name.
var arguments = map[string]string{
	"orgsync approve":    "[ID]     (no ID: list the pending approvals)",
	"orgsync reject":     "ID",
	"orgsync apply":      "FILE",
	"orgsync show":       "FILE",
	"orgsync init":       "[KIND]   (the same as --source KIND)",
	"orgsync test":       "FILE...  (mapping tests: orgsync.test.yaml files)",
	"orgsync completion": "bash|zsh|fish",
}

// FlagUsage writes a command's arguments and flags (its flag set fs) to w.
func FlagUsage(w io.Writer, fs *flag.FlagSet) {
	if a, ok := arguments[fs.Name()]; ok {
		fmt.Fprintf(w, "usage: %s %s [flags]\n", fs.Name(), a)
	}
	fmt.Fprintf(w, "usage of %s (flags may come before or after the arguments):\n", fs.Name())
	fs.SetOutput(w)
	fs.PrintDefaults()
}
