// Package interspersed parses a command's flags wherever they stand among
// its arguments (`users get alice@example.com --config X`), which the
// standard flag package stops at the first argument to do.
package interspersed

import "flag"

// Parse is fs.Parse that also accepts flags after arguments; "--" ends
// the flags. The arguments are left in fs.Args, in their order.
func Parse(fs *flag.FlagSet, args []string) error {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if consumed := args[:len(args)-len(rest)]; len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			positional = append(positional, rest...)
			break
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	// Parsing "--" and the arguments sets fs.Args without touching the flags.
	return fs.Parse(append([]string{"--"}, positional...))
}
