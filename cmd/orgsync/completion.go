package main

import (
	"context"
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
		for _, c := range completion.Candidates(tree{ctx, commands()}, fs.Args()[1:]) {
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

// tree is the command tree as completion walks it (completion.Tree).
type tree struct {
	ctx  context.Context
	cmds map[string]command
}

// Commands are the commands' names, sorted, then help.
func (t tree) Commands() []string { return append(slices.Sorted(maps.Keys(t.cmds)), "help") }

// IsHelp is isHelp.
func (tree) IsHelp(word string) bool { return isHelp(word) }

// Inspect returns what command name declares (inspect).
func (t tree) Inspect(name string, args []string) (*flag.FlagSet, []string, bool) {
	c, ok := t.cmds[name]
	if !ok {
		return nil, nil, false
	}
	in := inspect(t.ctx, c, args)
	return in.flags, in.subs, true
}

// inspect returns the flags and subcommands command c declares, with its
// subcommand when args start with one.
func inspect(ctx context.Context, c command, args []string) *inspection {
	in := &inspection{}
	c.run(ctx, stdio{out: io.Discard, err: io.Discard, inspect: in}, args[:min(len(args), 1)])
	return in
}

// Arguments are the pending approvals' ids for approve and reject, from
// the state directory of the configuration the words name.
func (tree) Arguments(name string, words []string) []string {
	if name != "approve" && name != "reject" {
		return nil
	}
	if cfg := configOf(words); cfg != nil {
		return store.PendingIDs(cfg.State.Dir)
	}
	return nil
}

// Values are the values flag f of command cmd takes; nil for a file name
// or a free value.
func (tree) Values(cmd string, f *flag.Flag, words []string) []string {
	switch {
	case f.Name == "source" && cmd == "init":
		return starter.Names()
	case f.Name == "source" && cmd == "demo":
		return demo.ExampleNames()
	case f.Name == "output" && f.DefValue == "text":
		return []string{"text", "json"}
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
// $ORGSYNC_CONFIG or orgsync.yaml; nil when it does not load.
func configOf(words []string) *config.Config {
	path := configDefault()
	for i, w := range words {
		switch name, value, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "="); {
		case !strings.HasPrefix(w, "-") || name != "config":
		case hasValue:
			path = value
		case i+1 < len(words):
			path = words[i+1]
		}
	}
	cfg, err := config.Load(path)
	if err != nil {
		return nil
	}
	return cfg
}
