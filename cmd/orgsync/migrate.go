package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"

	"github.com/orgsync/orgsync/internal/admin/migrate"
	"github.com/orgsync/orgsync/internal/demo/starter"
)

// runMigrate turns the incumbent tool's configuration (its main file and
// the files it names) into an orgsync configuration, prints the migration
// report and checks the result as validate does without the network.
func runMigrate(ctx context.Context, std stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync migrate", flag.ContinueOnError)
	out := fs.String("out", "", `the orgsync configuration to write (default: standard output, the report then on standard error)`)
	flags := fs.String("flags", "", `the incumbent's command-line options as it is run, e.g. "--process-groups --users mapped"`)
	reportFile := fs.String("report", "", "also write the migration report to this file")
	force := fs.Bool("force", false, "overwrite --out when it exists")
	accept := fs.Bool("accept-differences", false, "accept the differences that remove a protection or apply changes the incumbent would not (listed at the top of the configuration); without it migrate exits 1 when there are some")
	checkTarget := fs.Bool("check-target", false, "with --out and the secrets provided: sign in, plan every organization and count, in each secondary one, the users the plan changes whom the incumbent leaves alone there")
	keyring := fs.String("keyring", "", `where the incumbent's keyring entries (secure_*_key) are read: wincred (Windows Credential Manager) or command (Python's keyring command); default wincred on Windows, command elsewhere`)
	if code, ok := parseFlags(fs, args, std, 1); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(std.err, "usage: orgsync migrate user-sync-config.yml [--out orgsync.yaml] [--flags \"--process-groups --users mapped\"] [--report FILE] [--accept-differences]")
		return exitError
	}
	words, err := migrate.SplitFlags(*flags)
	if err != nil {
		return fail(std, fs.Name(), fmt.Errorf("--flags: %w", err))
	}
	c := migrate.Command{File: fs.Arg(0), Options: migrate.Options{Flags: words, Out: *out, AcceptDifferences: *accept, Keyring: *keyring},
		Name: cmp.Or(*out, starter.ConfigName), Force: *force, CheckTarget: *checkTarget, ReportFile: *reportFile, WriteNew: starter.WriteNew}
	ok, err := c.Run(ctx, std.out, std.err)
	if err != nil {
		return fail(std, fs.Name(), err)
	}
	if !ok {
		return exitError
	}
	return exitOK
}
