package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/orgsync/orgsync/internal/changecontrol"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/internal/state"
)

// runHistory prints the applied changes the state directory keeps,
// filtered by user, organization and age.
func runHistory(_ context.Context, io stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync history", flag.ContinueOnError)
	sf := addSetupFlags(fs)
	user := fs.String("user", "", "only this user's changes (email, or username@domain)")
	org := fs.String("org", "", "only this organization's changes (targets[].name)")
	since := fs.String("since", "", "only changes in this time back from now: 90m, 24h, 7d")
	output := fs.String("output", "text", "text or json (one JSON object a line)")
	e, code, ok := sf.start(fs, args, io, 0, output)
	if !ok {
		return code
	}
	f := state.Filter{User: strings.TrimSpace(*user), Org: *org}
	if *since != "" {
		d, err := state.ParseAge(*since)
		if err != nil {
			return fail(io, fs.Name(), fmt.Errorf("--since %q: %w", *since, err))
		}
		f.Since = time.Now().Add(-d)
	}
	if *org != "" {
		if _, err := run.Target(e.cfg, "--org", *org); err != nil {
			return fail(io, fs.Name(), err)
		}
	}
	dir := e.control.StateDir()
	if dir == nil {
		return fail(io, fs.Name(), changecontrol.ErrNoStateDir)
	}
	entries, err := dir.History(f)
	if err != nil {
		return fail(io, fs.Name(), err)
	}
	if *output == "json" {
		enc := json.NewEncoder(io.out)
		for i := range entries {
			if err := enc.Encode(&entries[i]); err != nil {
				return fail(io, fs.Name(), err)
			}
		}
		return exitOK
	}
	state.WriteTable(io.out, entries)
	return exitOK
}
