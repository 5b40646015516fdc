package completion

import (
	"flag"
	"slices"
	"strings"
)

// Tree is a program's command tree as completion walks it; the program
// implements it.
type Tree interface {
	// Commands are the commands' names in the order they are offered,
	// the help command's among them.
	Commands() []string
	// IsHelp reports whether word asks for help: before a command, it
	// completes as the command (help plan --o<TAB>).
	IsHelp(word string) bool
	// Inspect returns the flags command declares with args (args[0]
	// naming its subcommand, when it has some), or, when it has
	// subcommands and args name none, flags nil and its subcommands; ok
	// is false when there is no such command.
	Inspect(command string, args []string) (flags *flag.FlagSet, subs []string, ok bool)
	// Values are the values flag f of command takes, given the words of
	// the command line before the one completed; nil for a file name or a
	// free value.
	Values(command string, f *flag.Flag, words []string) []string
	// Arguments are the arguments command takes, given the words before
	// the one completed; nil for a file name.
	Arguments(command string, words []string) []string
}

// Candidates returns the completions of the last of words, the words of
// the command line after the program's name (the last one maybe ""):
// commands, subcommands, flags, a flag's values, and a command's
// arguments. Nothing means a file name.
func Candidates(t Tree, words []string) []string {
	if len(words) == 0 {
		return nil
	}
	cur, before := words[len(words)-1], words[:len(words)-1]
	switch {
	case len(before) == 0:
		return withPrefix(t.Commands(), cur)
	case t.IsHelp(before[0]) && len(before) == 1:
		return withPrefix(slices.DeleteFunc(t.Commands(), t.IsHelp), cur)
	case t.IsHelp(before[0]):
		before = before[1:]
	}
	flags, subs, ok := t.Inspect(before[0], before[1:])
	switch {
	case !ok:
		return nil
	case flags == nil: // a command whose subcommand is not named yet
		return withPrefix(subs, cur)
	}
	if f := valueOf(flags, before[len(before)-1]); f != nil {
		return withPrefix(t.Values(before[0], f, before), cur)
	}
	if strings.HasPrefix(cur, "-") {
		var names []string
		flags.VisitAll(func(f *flag.Flag) { names = append(names, "--"+f.Name) })
		return withPrefix(names, cur)
	}
	return withPrefix(t.Arguments(before[0], before), cur)
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
