package main

import (
	"context"
	"flag"

	"github.com/orgsync/orgsync/internal/view"
)

// runHistory prints the applied changes the state directory keeps,
// filtered by user, organization and age.
func runHistory(_ context.Context, std stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync history", flag.ContinueOnError)
	sf := addSetupFlags(fs)
	user := fs.String("user", "", "only this user's changes (email, or username@domain)")
	org := fs.String("org", "", "only this organization's changes (targets[].name)")
	since := fs.String("since", "", "only changes in this time back from now: 90m, 24h, 7d")
	output := fs.String("output", view.FormatText, "text or json (one JSON object a line)")
	e, code, ok := sf.start(fs, args, std, 0, output)
	if !ok {
		return code
	}
	entries, err := e.control.History(*user, *org, *since)
	if err == nil {
		err = view.History(std.out, entries, *output)
	}
	if err != nil {
		return fail(std, fs.Name(), err)
	}
	return exitOK
}
