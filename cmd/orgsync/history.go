package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
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
		d, err := parseAge(*since)
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
	writeHistory(io, entries)
	return exitOK
}

// writeHistory prints entries as aligned text, one a line.
func writeHistory(io stdio, entries []state.Entry) {
	if len(entries) == 0 {
		fmt.Fprintln(io.out, "no changes recorded (for this filter)")
		return
	}
	tw := tabwriter.NewWriter(io.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tORG\tUSER\tKIND\tSTEPS\tRESULT\tWHY")
	for _, e := range entries {
		result := e.Result
		if e.Code != "" {
			result += " " + e.Code
		}
		why := e.Reason
		if e.Approval != "" {
			why += " (approval " + e.Approval + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Time.Local().Format(time.DateTime), e.Org, e.User, e.Kind,
			strings.Join(e.Steps, "; "), result, why)
	}
	tw.Flush()
}

// maxDays is the most days a time.Duration holds.
const maxDays = int(math.MaxInt64 / int64(24*time.Hour))

// parseAge reads a duration, also in days ("7d").
func parseAge(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 || n > maxDays {
			return 0, fmt.Errorf("want a duration such as 90m, 24h or 7d")
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("want a duration such as 90m, 24h or 7d")
	}
	return d, nil
}
