package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
)

// Exit codes (DESIGN.md): 0 in sync or applied, 1 error, 2 `plan
// --detailed-exitcode` found changes.
const (
	exitOK      = 0
	exitError   = 1
	exitChanges = 2
)

// stdio are the streams a command writes to: results to out, logs and
// errors to err.
type stdio struct {
	out io.Writer
	err io.Writer
}

// command is one subcommand.
type command struct {
	summary string
	run     func(ctx context.Context, io stdio, args []string) int
}

// commands returns the subcommands by name.
func commands() map[string]command {
	return map[string]command{
		"plan":     {"show what a sync would change (dry run)", runPlan},
		"sync":     {"apply the changes", runSync},
		"daemon":   {"sync on the configured schedule; serve /healthz, /readyz, /metrics", runDaemon},
		"validate": {"check the configuration and read the sources", runValidate},
		"sim":      {"run the service simulator", runSim},
		"demo":     {"sync the example sources into an in-process simulator", runDemo},
		"invites":  {"list, resend or revoke pending invites", runInvites},
		"products": {"list the organization's products", runProducts},
		"users":    {"list users or look one up", runUsers},
		"version":  {"print the version", runVersion},
	}
}

// run dispatches to the subcommand named by args[0] and returns the exit
// code.
func run(ctx context.Context, args []string, io stdio) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(io.out, cmds)
		if len(args) == 0 {
			return exitError
		}
		return exitOK
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(io.err, "orgsync: unknown command %q\n", args[0])
		usage(io.err, cmds)
		return exitError
	}
	return c.run(ctx, io, args[1:])
}

// usage lists the commands with their summaries.
func usage(w io.Writer, cmds map[string]command) {
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintln(w, "usage: orgsync <command> [flags]   (orgsync <command> -h for its flags)")
	fmt.Fprintln(w, "\ncommands:")
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, cmds[n].summary)
	}
}

// fail prints err prefixed with the command's name and returns exitError.
func fail(io stdio, name string, err error) int {
	fmt.Fprintf(io.err, "%s: %v\n", name, err)
	return exitError
}

// validOutput reports whether a command's --output value is text or json,
// printing what to use when it is not.
func validOutput(io stdio, name, output string) bool {
	if output == "text" || output == "json" {
		return true
	}
	fmt.Fprintf(io.err, "%s: --output %q: use text or json\n", name, output)
	return false
}

// parseFlags parses a subcommand's flags, allowing at most maxArgs
// arguments after them. It returns false (having printed why) when the
// command should stop; code is then its exit code.
func parseFlags(fs *flag.FlagSet, args []string, io stdio, maxArgs int) (ok bool, code int) {
	fs.SetOutput(io.err)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return false, exitOK
	case err != nil:
		return false, exitError
	case fs.NArg() > maxArgs:
		fmt.Fprintf(io.err, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(maxArgs))
		return false, exitError
	}
	return true, exitOK
}
