package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/demo"
	"github.com/orgsync/orgsync/internal/demo/starter"
	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/util/completion"
	"github.com/orgsync/orgsync/internal/view"
)

// runCompletion prints the completion script of a shell, or (for the
// scripts) the candidates of the last of the words after --.
func runCompletion(ctx context.Context, std stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync completion", flag.ContinueOnError)
	shells := slices.Sorted(maps.Keys(completion.Scripts))
	if code, ok := parseFlags(fs, args, std, math.MaxInt); !ok {
		return code
	}
	switch name := fs.Arg(0); {
	case name == "candidates":
		for _, c := range candidates(ctx, fs.Args()[1:]) {
			fmt.Fprintln(std.out, c)
		}
		return exitOK
	case completion.Scripts[name] != "" && fs.NArg() == 1:
		fmt.Fprint(std.out, completion.Scripts[name])
		return exitOK
	}
	fmt.Fprintf(std.err, "orgsync completion: name the shell: %s (orgsync completion bash, then source its output)\n", strings.Join(shells, ", "))
	return exitError
}

// candidates returns the completions of the last of words, the words of
// the command line after "orgsync": from the commands, what each
// declares, the values of their flags, and the pending approvals' ids for
// approve and reject.
func candidates(ctx context.Context, words []string) []string {
	cmds := commands()
	return completion.Tree{
		Commands: slices.Sorted(maps.Keys(cmds)),
		IsHelp:   isHelp,
		Declared: func(cmd string, args []string) (*flag.FlagSet, []string) {
			in := inspect(ctx, cmds[cmd], args)
			return in.flags, in.subs
		},
		Values: flagValues,
		Arguments: func(cmd string, words []string) []string {
			if cmd != "approve" && cmd != "reject" {
				return nil
			}
			if cfg := configOf(words); cfg != nil {
				return store.PendingIDs(cfg.State.Dir)
			}
			return nil
		},
	}.Candidates(words)
}

// inspect returns the flags and subcommands command c declares, with its
// subcommand when args start with one.
func inspect(ctx context.Context, c command, args []string) *inspection {
	in := &inspection{}
	c.run(ctx, stdio{out: io.Discard, err: io.Discard, inspect: in}, args[:min(len(args), 1)])
	return in
}

// flagValues returns the values flag f of command cmd takes; nil for a
// file name or a free value.
func flagValues(cmd string, f *flag.Flag, words []string) []string {
	switch {
	case f.Name == "source" && cmd == "init":
		return starter.Names()
	case f.Name == "source" && cmd == "demo":
		return demo.ExampleNames()
	case f.Name == "output" && f.DefValue == view.FormatText:
		return []string{view.FormatText, view.FormatJSON}
	case f.Name == "log-format":
		return config.LogFormats
	case f.Name == "log-level":
		return config.LogLevels
	case f.Name == "orgs" || f.Name == "org":
		if cfg := configOf(words); cfg != nil {
			return cfg.TargetNames()
		}
	}
	return nil
}

// configOf loads the configuration the words name (--config), else
// $ORGSYNC_CONFIG or orgsync.yaml: as far as it decoded when it has
// problems that leave state and notify alone (config.Error.Salvage), nil
// when it does not load at all.
func configOf(words []string) *config.Config {
	path := cmp.Or(completion.FlagValue(words, "config"), starter.DefaultConfig())
	cfg, err := config.Load(path) // nil when it does not load
	if cerr := (*config.Error)(nil); errors.As(err, &cerr) {
		cfg = cerr.Salvage() // a file init wrote, not yet filled in, still names its organizations
	}
	return cfg
}
