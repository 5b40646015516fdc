package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/orgsync/orgsync/internal/changecontrol"
	"github.com/orgsync/orgsync/internal/util/crash"
	"github.com/orgsync/orgsync/internal/util/interspersed"
	"github.com/orgsync/orgsync/internal/util/logs"
	"github.com/orgsync/orgsync/internal/util/memlimit"
	"github.com/orgsync/orgsync/internal/util/suggest"
	"github.com/orgsync/orgsync/internal/util/termsafe"
	"github.com/orgsync/orgsync/internal/view"
)

// Exit codes (docs/commands.md): 0 in sync or applied, 1 error, 2 `plan
// --detailed-exitcode` found changes, 3 changes were applied that the
// state directory could not record (history, run record).
//
// One convention for the steps of a command: a command returns its exit
// code; a step that may end it (parseFlags, subcommand, setup's start)
// returns what it made, then the exit code and whether to go on
// (..., code int, ok bool); a step that fails with an error leaves the
// printing to fail, which returns exitError.
const (
	exitOK         = 0
	exitError      = 1
	exitChanges    = 2
	exitUnrecorded = 3
)

// stdio are the streams of a command: results to out, logs and errors
// to err, answers (approve's) from in.
type stdio struct {
	out io.Writer
	err io.Writer
	in  io.Reader // nil: none
	// inspect, when set, asks the command for its flags and subcommands
	// instead of running it (see inspection).
	inspect *inspection
	// outcome, for a command line whose outcome is recorded, is how it
	// ends (see outcome).
	outcome *outcome
	// memory is what the process's start decided about the Go memory
	// limit (main), logged by the commands that run the job; nil in tests
	// that call dispatch.
	memory *memlimit.Decision
}

// escaped returns std with its output streams escaped for a terminal
// (the same streams when they are already), and what writes what they
// still hold.
func (std stdio) escaped() (stdio, func()) {
	out, err := termsafe.NewWriter(std.out), termsafe.NewWriter(std.err)
	std.out, std.err = out, err
	return std, func() { _, _ = out.Flush(), err.Flush() }
}

// inspection is what a command declares: parseFlags and subcommand record
// its flags and subcommands in it and stop the command (exit 0) before it
// reads or writes anything. Completion and help use it.
type inspection struct {
	flags *flag.FlagSet
	subs  []string // the command's subcommands, when it has them
}

// command is one subcommand.
type command struct {
	summary string
	run     func(ctx context.Context, std stdio, args []string) int
	// records are the command lines of it that can change the service or
	// an approval ("sync", "invites resend"), with the mode of their run
	// records: each ends through its outcome (outcome.go).
	records map[string]string
}

// commands returns the subcommands by name.
func commands() map[string]command {
	return map[string]command{
		"plan":       {"show what a sync would change (dry run)", runPlan, nil},
		"sync":       {"apply the changes", runSync, map[string]string{"sync": changecontrol.ModeSync}},
		"daemon":     {"sync on the configured schedule; serve /healthz, /readyz, /metrics and the status page", runDaemon, map[string]string{"daemon": changecontrol.ModeSync}},
		"validate":   {"check the configuration and read the sources", runValidate, nil},
		"init":       {"write a commented starter configuration for a kind of source", runInit, nil},
		"sim":        {"run the service simulator", runSim, nil},
		"demo":       {"sync the example sources into an in-process simulator", runDemo, nil},
		"invites":    {"list, resend or revoke pending invites", runInvites, map[string]string{"invites resend": changecontrol.ModeResend, "invites revoke": changecontrol.ModeRevoke}},
		"products":   {"list the organization's products", runProducts, nil},
		"users":      {"list users or look one up", runUsers, nil},
		"approve":    {"list the changes a safety limit held, or apply one approval", runApprove, map[string]string{"approve": changecontrol.ModeApprove}},
		"reject":     {"discard the changes a safety limit held", runReject, map[string]string{"reject": changecontrol.ModeReject}},
		"apply":      {"apply a saved plan (plan --out), refusing when a fresh plan differs", runApply, map[string]string{"apply": changecontrol.ModeApply}},
		"show":       {"print a saved plan as text or JSON", runShow, nil},
		"history":    {"show the changes applied, by user, organization and time", runHistory, nil},
		"version":    {"print the version, commit and build date", runVersion, nil},
		"schema":     {"print the JSON Schema of the configuration file, for editors and CI", runSchema, nil},
		"test":       {"check a configuration's mapping against expectations, offline (orgsync test FILE...)", runTest, nil},
		"completion": {"print the shell completion script: orgsync completion bash|zsh|fish", runCompletion, nil},
		"migrate":    {"turn the incumbent tool's configuration into orgsync's, with a report of every setting", runMigrate, nil},
		"service":    {"install, remove, start, stop or reload the Windows service that runs orgsync daemon", runService, nil},
	}
}

// summaries are the commands' summaries by name.
func summaries(cmds map[string]command) map[string]string {
	out := make(map[string]string, len(cmds))
	for n, c := range cmds {
		out[n] = c.summary
	}
	return out
}

// dispatch runs the subcommand named by args[0] and returns the exit
// code. Everything a command writes to std.out and std.err is shown as
// data on a terminal (termsafe): a control character from a directory
// or a server is written escaped.
func dispatch(ctx context.Context, args []string, std stdio) int {
	std, flush := std.escaped()
	defer flush()
	cmds := commands()
	if len(args) > 1 && isHelp(args[0]) { // help COMMAND [SUBCOMMAND]: as COMMAND -h
		return dispatch(ctx, append(slices.Clone(args[1:]), "-h"), std)
	}
	if len(args) == 0 || isHelp(args[0]) {
		view.Usage(std.out, summaries(cmds))
		if len(args) == 0 {
			return exitError
		}
		return exitOK
	}
	if args[0] == "--version" || args[0] == "-version" {
		return runVersion(ctx, std, args[1:])
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(std.err, "orgsync: unknown command %q%s\n", args[0], suggest.DidYouMean(args[0], slices.Sorted(maps.Keys(cmds))))
		view.Usage(std.err, summaries(cmds))
		return exitError
	}
	if std.inspect == nil {
		std.outcome = recorded(args[0], c, args[1:])
	}
	code := guarded(std, args[0], func() int { return c.run(ctx, std, args[1:]) })
	return std.outcome.finish(std, args[0], code)
}

// guarded runs a command and returns its exit code. A panic in it (a bug)
// is printed with its stack and exits 1, never with the 2 of Go's own
// panic exit, which plan --detailed-exitcode gives to "changes pending".
func guarded(std stdio, name string, cmd func() int) (code int) {
	if e := crash.Run(func() { code = cmd() }); e != nil {
		fmt.Fprintf(std.err, "orgsync %s: %v\n%s", name, e, e.Stack)
		return exitError
	}
	return code
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	return arg == "help" || arg == "-h" || arg == "--help" || arg == "-help"
}

// subcommand checks that args start with one of a command's subcommands
// (users list, users get ...). On help it prints the usage line to std.out
// and returns exit 0 and false; on anything else but a subcommand, to
// std.err, exit 1 and false.
func subcommand(std stdio, args []string, usageLine string, subs ...string) (code int, ok bool) {
	if len(args) > 0 && slices.Contains(subs, args[0]) {
		return exitOK, true
	}
	if std.inspect != nil {
		std.inspect.subs = subs
		return exitOK, false
	}
	if len(args) > 0 && isHelp(args[0]) {
		fmt.Fprintln(std.out, usageLine)
		fmt.Fprintln(std.out, "(orgsync <command> <subcommand> -h lists its flags)")
		return exitOK, false
	}
	fmt.Fprintln(std.err, usageLine)
	return exitError, false
}

// fail prints err prefixed with the command's name and returns exitError;
// a command whose outcome is recorded ends through it (outcome.end).
func fail(std stdio, name string, err error) int {
	if o := std.outcome; o != nil && o.env != nil && !o.ended {
		return o.end(std, name, err)
	}
	printError(std, name, err)
	return exitError
}

// printError prints err prefixed with the command's name, then the
// detail it has for the local log only (logs.LocalDetail: a secret
// command's standard error), which no record or notification gets.
func printError(std stdio, name string, err error) {
	fmt.Fprintf(std.err, "%s: %v\n", name, err)
	if d := logs.DetailOf(err); d != "" {
		fmt.Fprintf(std.err, "%s: %s\n", name, d)
	}
}

// validOutput reports whether a command's --output value is text or json,
// printing what to use when it is not.
func validOutput(std stdio, name, output string) bool {
	if output == view.FormatText || output == view.FormatJSON {
		return true
	}
	fmt.Fprintf(std.err, "%s: --output %q: use text or json\n", name, output)
	return false
}

// parseFlags parses a subcommand's flags, before or after its arguments,
// allowing at most maxArgs arguments; fs.Args then holds the arguments. It
// returns ok false (having printed why) when the command should stop, with
// code its exit code. -h prints the flags to std.out and exits 0.
func parseFlags(fs *flag.FlagSet, args []string, std stdio, maxArgs int) (code int, ok bool) {
	if std.inspect != nil {
		std.inspect.flags = fs
		return exitOK, false
	}
	fs.SetOutput(std.err)
	fs.Usage = func() {}
	err := interspersed.Parse(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		view.FlagUsage(std.out, fs)
		return exitOK, false
	case err != nil:
		view.FlagUsage(std.err, fs)
		return exitError, false
	case fs.NArg() > maxArgs:
		fmt.Fprintf(std.err, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(maxArgs))
		return exitError, false
	}
	return exitOK, true
}
