package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/orgsync/orgsync/examples"
	"github.com/orgsync/orgsync/source/ldap/samba"
	"github.com/orgsync/orgsync/source/ldap/slapd"
	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
)

// demoSource is one example `orgsync demo --source` can sync.
type demoSource struct {
	// dir is the example's directory: examples/<dir>/orgsync.yaml.
	dir string
	// start, when set, starts what the example reads (a directory server)
	// with the example files copied under dir. It returns the replacements
	// (old, new pairs) that point the example's configuration at it, and a
	// function that stops it.
	start func(io stdio, dir string) (replace []string, stop func(), err error)
}

// demoSources are the examples the demo can sync, by --source name.
var demoSources = map[string]demoSource{
	"multiorg":        {dir: "multiorg"},
	"csv":             {dir: "csv"},
	"yaml":            {dir: "yaml"},
	"ldap":            {dir: "openldap", start: startDemoSlapd},
	"activedirectory": {dir: "activedirectory/demo", start: startDemoSamba},
	"entra":           {dir: "entra", start: startDemoEntra},
	"okta":            {dir: "okta", start: startDemoOkta},
}

// demoSourceNames lists the --source values of the demo.
func demoSourceNames() string {
	return strings.Join(slices.Sorted(maps.Keys(demoSources)), ", ")
}

// runDemo starts the simulator in-process with the two example
// organizations and syncs an example into them: the plan, the result, and
// a second plan that has nothing to do.
func runDemo(ctx context.Context, io stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync demo", flag.ContinueOnError)
	lf := addLogFlags(fs)
	name := fs.String("source", "multiorg", "example to sync (multiorg: a CSV file into both organizations; the others into the first): "+demoSourceNames())
	if ok, code := parseFlags(fs, args, io, 0); !ok {
		return code
	}
	example, ok := demoSources[*name]
	if !ok {
		fmt.Fprintf(io.err, "orgsync demo: --source %q: use one of %s\n", *name, demoSourceNames())
		return exitError
	}
	if lf.level == "" {
		lf.level = "warn" // the demo prints the plans; the logs would repeat them
	}
	if err := demo(ctx, io, lf, example); err != nil {
		return fail(io, fs.Name(), err)
	}
	return exitOK
}

// demo runs the simulator with the example organizations on a loopback
// port (and what the example reads, when it needs a server) and syncs the
// example into them.
func demo(ctx context.Context, io stdio, lf *logFlags, example demoSource) error {
	start := time.Now()
	dir, err := os.MkdirTemp("", "orgsync-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := copyExamples(dir); err != nil {
		return err
	}
	var replace []string
	if example.start != nil {
		r, stop, err := example.start(io, dir)
		if err != nil {
			return err
		}
		defer stop()
		replace = r
	}
	srv, err := newSimServer(filepath.Join(dir, "sim", "orgs.yaml"),
		umsim.Options{Limits: gate.Limits{Read: 25, App: 100, Window: time.Minute}}) // the service's own limits
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- serveUntilDone(sctx, ln, srv) }()
	defer func() { stop(); <-served }()
	url := "http://" + ln.Addr().String()
	fmt.Fprintf(io.out, "Simulator with the example organizations at %s; syncing examples/%s/orgsync.yaml into them.\n", url, example.dir)
	cfgPath, err := demoConfig(dir, example.dir, append(replace, "http://127.0.0.1:8080", url))
	if err != nil {
		return err
	}
	e, ok := (&setupFlags{config: cfgPath, log: lf}).setup(io)
	if !ok {
		return fmt.Errorf("the example configuration does not load")
	}
	if err := demoSteps(ctx, io, e); err != nil {
		return err
	}
	requests, tooMany := simTotals(srv)
	fmt.Fprintf(io.out, "\nIn sync. The simulator answered %d requests, %d of them 429; the demo took %s.\n",
		requests, tooMany, time.Since(start).Round(time.Millisecond))
	return nil
}

// demoSteps plans, syncs and plans again, failing when the second plan is
// not empty.
func demoSteps(ctx context.Context, io stdio, e *env) error {
	fmt.Fprintln(io.out, "\n== 1. orgsync plan: what a sync would change")
	plans, err := e.printPlans(ctx, io.out, "text")
	if err != nil {
		return err
	}
	fmt.Fprintln(io.out, "\n== 2. orgsync sync: apply it")
	reps, err := e.applyAll(ctx, plans, applyReal)
	for _, rep := range reps {
		e.printResult(io, rep, applyReal)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(io.out, "\n== 3. orgsync plan again: nothing left to do")
	again, err := e.printPlans(ctx, io.out, "text")
	if err != nil {
		return err
	}
	for _, p := range again {
		if p.err != nil {
			return p.err
		}
		if !p.plan.Empty() {
			return fmt.Errorf("the second plan of %s is not empty: the sync did not converge", p.org.Name)
		}
	}
	return nil
}

// demoConfig writes the example's configuration with the replacements
// (old, new pairs: the simulator's address, a directory server's) and
// returns its path.
func demoConfig(dir, example string, replace []string) (string, error) {
	src := filepath.Join(dir, example, "orgsync.yaml")
	data, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, example, "demo.yaml")
	text := strings.NewReplacer(replace...).Replace(string(data))
	return out, os.WriteFile(out, []byte(text), 0o600)
}

// startDemoSlapd serves the OpenLDAP example's directory
// (openldap/users.ldif under dir) from a throwaway slapd on a free
// loopback port, and points the example at it, with the reader account's
// password in a file.
func startDemoSlapd(io stdio, dir string) ([]string, func(), error) {
	ldif, err := os.ReadFile(filepath.Join(dir, "openldap", "users.ldif"))
	if err != nil {
		return nil, nil, err
	}
	sdir := filepath.Join(dir, "slapd")
	if err := os.Mkdir(sdir, 0o700); err != nil {
		return nil, nil, err
	}
	srv, err := slapd.Start(slapd.Options{Dir: sdir, LDIF: string(ldif)})
	if err != nil {
		return nil, nil, fmt.Errorf("starting OpenLDAP for the example: %w", err)
	}
	pw := filepath.Join(dir, "openldap", "ldap-password")
	if err := os.WriteFile(pw, []byte(examples.OpenLDAPReaderPassword), 0o600); err != nil {
		srv.Stop()
		return nil, nil, err
	}
	fmt.Fprintf(io.out, "OpenLDAP slapd at %s serving examples/openldap/users.ldif.\n", srv.URL)
	return []string{"ldap://127.0.0.1:3890", srv.URL, "password: {env: LDAP_BIND_PASSWORD}", "password: {file: ldap-password}"}, srv.Stop, nil
}

// startDemoSamba serves the Active Directory example's directory
// (activedirectory/demo/directory.ldif under dir) from a throwaway Samba
// domain controller on 127.0.0.1 (it needs root), and exports the service
// account's keytab beside the example's configuration.
func startDemoSamba(io stdio, dir string) ([]string, func(), error) {
	example := filepath.Join(dir, "activedirectory", "demo")
	ldif, err := os.ReadFile(filepath.Join(example, "directory.ldif"))
	if err != nil {
		return nil, nil, err
	}
	sdir := filepath.Join(dir, "samba")
	if err := os.Mkdir(sdir, 0o700); err != nil {
		return nil, nil, err
	}
	fmt.Fprintln(io.out, "Starting a Samba domain controller for CORP.EXAMPLE.COM (the first time, provisioning the domain takes a minute).")
	srv, err := samba.Start(samba.Options{Dir: sdir, LDIF: string(ldif), CacheDir: filepath.Join(os.TempDir(), "orgsync-samba-cache"),
		Passwords: map[string]string{"svc-orgsync": examples.ActiveDirectoryServicePassword}})
	if err != nil {
		return nil, nil, fmt.Errorf("starting Samba for the example: %w", err)
	}
	if err := srv.ExportKeytab("svc-orgsync@"+samba.Realm, filepath.Join(example, "svc-orgsync.keytab")); err != nil {
		srv.Stop()
		return nil, nil, err
	}
	fmt.Fprintf(io.out, "Samba domain controller at %s (KDC %s) serving examples/activedirectory/demo/directory.ldif.\n", srv.URL, srv.KDC)
	return nil, srv.Stop, nil
}
