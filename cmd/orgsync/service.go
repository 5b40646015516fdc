package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/orgsync/orgsync/internal/demo/starter"
	"github.com/orgsync/orgsync/internal/winsvc"
)

// serviceUsage is the usage line of orgsync service.
const serviceUsage = "usage: orgsync service install [--config FILE] [--account NAME] | orgsync service uninstall|start|stop|reload"

// runService installs, removes, starts, stops and reloads the Windows
// service that runs orgsync daemon (the MSI installs it too).
func runService(_ context.Context, std stdio, args []string) int {
	if code, ok := subcommand(std, args, serviceUsage, winsvc.Actions...); !ok {
		return code
	}
	fs := flag.NewFlagSet("orgsync service "+args[0], flag.ContinueOnError)
	var config, account *string
	if args[0] == "install" {
		config = fs.String("config", filepath.Join(starter.Installed().ConfigDir, starter.ConfigName), "the configuration the service runs with")
		account = fs.String("account", "", `the account the service runs as: a group-managed service account (CORP\svc-orgsync$); default the virtual account NT SERVICE\orgsync`)
	}
	if code, ok := parseFlags(fs, args[1:], std, 0); !ok {
		return code
	}
	exe, err := os.Executable()
	o := winsvc.Options{Exe: exe}
	if err == nil && args[0] == "install" {
		var path string
		if path, err = filepath.Abs(*config); err == nil {
			l := starter.Installed()
			o.Args, o.Account = []string{"daemon", "--config", path}, *account
			o.Folders = winsvc.Folders{Config: filepath.Dir(path), State: l.StateDir, Logs: filepath.Dir(l.LogFile)}
		}
	}
	var done string
	var warnings []string
	if err == nil {
		done, warnings, err = winsvc.Control(args[0], o)
	}
	for _, w := range warnings {
		fmt.Fprintf(std.err, "%s: warning: %s\n", fs.Name(), w)
	}
	if err != nil {
		return fail(std, fs.Name(), err)
	}
	fmt.Fprintln(std.out, done)
	return exitOK
}
