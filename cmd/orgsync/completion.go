package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
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
// the command line after "orgsync" (the last one maybe ""): commands,
// subcommands, flags, a flag's values, and approval ids for approve and
// reject. Nothing means a file name.
func candidates(ctx context.Context, words []string) []string {
	if len(words) == 0 {
		return nil
	}
	cur, before := words[len(words)-1], words[:len(words)-1]
	cmds := commands()
	names := slices.Sorted(maps.Keys(cmds))
	switch {
	case len(before) == 0:
		return withPrefix(append(names, "help"), cur)
	case isHelp(before[0]) && len(before) == 1:
		return withPrefix(names, cur)
	case isHelp(before[0]):
		before = before[1:]
	}
	c, ok := cmds[before[0]]
	if !ok {
		return nil
	}
	in := inspect(ctx, c, before[1:])
	if in.flags == nil { // a command whose subcommand is not named yet
		return withPrefix(in.subs, cur)
	}
	if f := valueOf(in.flags, before[len(before)-1]); f != nil {
		return withPrefix(flagValues(f, before[0], before), cur)
	}
	if strings.HasPrefix(cur, "-") {
		var flags []string
		in.flags.VisitAll(func(f *flag.Flag) { flags = append(flags, "--"+f.Name) })
		return withPrefix(flags, cur)
	}
	if before[0] == "approve" || before[0] == "reject" {
		return withPrefix(approvalIDs(before), cur)
	}
	return nil
}

// inspect returns the flags and subcommands command c declares, with its
// subcommand when args start with one.
func inspect(ctx context.Context, c command, args []string) *inspection {
	in := &inspection{}
	c.run(ctx, stdio{out: io.Discard, err: io.Discard, inspect: in}, args[:min(len(args), 1)])
	return in
}

// valueOf returns the flag that word names when the word after it is that
// flag's value (a flag that is not true or false, written without =).
func valueOf(fs *flag.FlagSet, word string) *flag.Flag {
	name, ok := strings.CutPrefix(strings.TrimPrefix(word, "-"), "-")
	if !ok {
		name = strings.TrimPrefix(word, "-")
	}
	if !strings.HasPrefix(word, "-") || strings.Contains(name, "=") {
		return nil
	}
	f := fs.Lookup(name)
	if f == nil {
		return nil
	}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return nil
	}
	return f
}

// flagValues returns the values flag f of command cmd takes; nil for a
// file name or a free value.
func flagValues(f *flag.Flag, cmd string, words []string) []string {
	switch {
	case f.Name == "source" && cmd == "init":
		return starter.Names()
	case f.Name == "source" && cmd == "demo":
		return slices.Sorted(maps.Keys(demo.Examples()))
	case f.Name == "output" && f.DefValue == view.FormatText:
		return []string{view.FormatText, view.FormatJSON}
	case f.Name == "log-format":
		return config.LogFormats
	case f.Name == "log-level":
		return config.LogLevels
	case f.Name == "orgs" || f.Name == "org":
		if cfg := configOf(words); cfg != nil {
			var names []string
			for _, t := range cfg.Targets {
				names = append(names, t.Name)
			}
			return names
		}
	}
	return nil
}

// approvalIDs returns the pending approvals' ids, from the state directory
// of the configuration the words name, when it exists and can be read.
func approvalIDs(words []string) []string {
	cfg := configOf(words)
	if cfg == nil || cfg.State.Dir == "" {
		return nil
	}
	if _, err := os.Stat(cfg.State.Dir); err != nil {
		return nil // never create it here
	}
	dir, err := store.Open(cfg.State.Dir, store.Options{})
	if err != nil {
		return nil
	}
	list, err := dir.Approvals("", store.Pending)
	if err != nil {
		return nil
	}
	ids := make([]string, len(list))
	for i, a := range list {
		ids[i] = a.ID
	}
	return ids
}

// configOf loads the configuration the words name (--config), else
// $ORGSYNC_CONFIG or orgsync.yaml; nil when it does not load.
func configOf(words []string) *config.Config {
	path := os.Getenv("ORGSYNC_CONFIG")
	if path == "" {
		path = defaultConfigPath
	}
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

// withPrefix returns the words that start with prefix.
func withPrefix(words []string, prefix string) []string {
	var out []string
	for _, w := range words {
		if strings.HasPrefix(w, prefix) {
			out = append(out, w)
		}
	}
	return out
}
