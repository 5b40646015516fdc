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
	if code, ok := subcommand(std, args, serviceUsage, "install", "uninstall", "start", "stop", "reload"); !ok {
		return code
	}
	fs := flag.NewFlagSet("orgsync service "+args[0], flag.ContinueOnError)
	var config, account *string
	if args[0] == "install" {
		config = fs.String("config", filepath.Join(starter.Installed().ConfigDir, defaultConfigPath), "the configuration the service runs with")
		account = fs.String("account", "", `the account the service runs as: a group-managed service account (CORP\svc-orgsync$); default the virtual account NT SERVICE\orgsync`)
	}
	if code, ok := parseFlags(fs, args[1:], std, 0); !ok {
		return code
	}
	exe, err := os.Executable()
	if err != nil {
		return fail(std, fs.Name(), err)
	}
	var done string
	switch args[0] {
	case "install":
		var path string
		var warnings []string
		if path, err = filepath.Abs(*config); err == nil {
			l := starter.Installed()
			warnings, err = winsvc.Install(winsvc.Options{Exe: exe, Args: []string{"daemon", "--config", path}, Account: *account,
				Folders: winsvc.Folders{Config: filepath.Dir(path), State: l.StateDir, Logs: filepath.Dir(l.LogFile)}})
		}
		for _, w := range warnings {
			fmt.Fprintf(std.err, "%s: warning: %s\n", fs.Name(), w)
		}
		done = fmt.Sprintf("service %s installed: it runs %s daemon --config %s, starts with Windows once started (orgsync service start), and restarts after a failure", winsvc.Name, exe, path)
	case "uninstall":
		err = winsvc.Uninstall(exe)
		done = fmt.Sprintf("service %s removed; its configuration and state are kept", winsvc.Name)
	case "start":
		err = winsvc.Start()
		done = fmt.Sprintf("service %s started: its log says when the next run is", winsvc.Name)
	case "stop":
		err = winsvc.Stop()
		done = fmt.Sprintf("service %s stopped", winsvc.Name)
	case "reload":
		err = winsvc.Reload()
		done = fmt.Sprintf("service %s reads its configuration again (between runs)", winsvc.Name)
	}
	if err != nil {
		return fail(std, fs.Name(), err)
	}
	fmt.Fprintln(std.out, done)
	return exitOK
}
