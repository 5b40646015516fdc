package completion

import (
	"flag"
	"slices"
	"strings"
)

// Tree is what a command line is completed from: the program's commands
// and what each declares.
type Tree struct {
	Commands []string               // the commands' names
	IsHelp   func(word string) bool // whether a word asks for help (help COMMAND completes as COMMAND)
	// Declared returns the flags and subcommands command cmd declares, with
	// its subcommand when args start with one; its flags are nil while a
	// subcommand is still to be named.
	Declared func(cmd string, args []string) (*flag.FlagSet, []string)
	// Values returns the values flag f of command cmd takes, the words
	// before given; nil for a file name or a free value.
	Values func(cmd string, f *flag.Flag, words []string) []string
	// Arguments returns the candidates of command cmd's arguments, the
	// words before given; nil for a file name.
	Arguments func(cmd string, words []string) []string
}

// Candidates returns the completions of the last of words, the words of
// the command line after the program's name (the last one maybe ""):
// commands, subcommands, flags, a flag's values and the arguments'
// candidates. Nothing means a file name.
func (t Tree) Candidates(words []string) []string {
	if len(words) == 0 {
		return nil
	}
	cur, before := words[len(words)-1], words[:len(words)-1]
	switch {
	case len(before) == 0:
		return withPrefix(append(slices.Clone(t.Commands), "help"), cur)
	case t.IsHelp(before[0]) && len(before) == 1:
		return withPrefix(t.Commands, cur)
	case t.IsHelp(before[0]):
		before = before[1:]
	}
	if !slices.Contains(t.Commands, before[0]) {
		return nil
	}
	flags, subs := t.Declared(before[0], before[1:])
	if flags == nil { // a command whose subcommand is not named yet
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

// FlagValue returns the value words give flag name (--name VALUE,
// --name=VALUE, one dash or two; the last one wins), "" when they give
// none.
func FlagValue(words []string, name string) string {
	value := ""
	for i, w := range words {
		switch n, v, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "="); {
		case !strings.HasPrefix(w, "-") || n != name:
		case hasValue:
			value = v
		case i+1 < len(words):
			value = words[i+1]
		}
	}
	return value
}
