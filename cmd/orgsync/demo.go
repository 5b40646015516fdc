package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
)

// runDemo starts the simulator in-process with the example organization
// and syncs an example source into it: the plan, the result, and a second
// plan that has nothing to do.
func runDemo(ctx context.Context, io stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync demo", flag.ContinueOnError)
	lf := addLogFlags(fs)
	example := fs.String("source", "csv", "example source to sync: csv or yaml")
	if ok, code := parseFlags(fs, args, io, 0); !ok {
		return code
	}
	if *example != "csv" && *example != "yaml" {
		fmt.Fprintf(io.err, "orgsync demo: --source %q: use csv or yaml\n", *example)
		return exitError
	}
	if lf.level == "" {
		lf.level = "warn" // the demo prints the plans; the logs would repeat them
	}
	if err := demo(ctx, io, lf, *example); err != nil {
		return fail(io, fs.Name(), err)
	}
	return exitOK
}

// demo runs the simulator with the example organization on a loopback
// port and syncs the example source into it.
func demo(ctx context.Context, io stdio, lf *logFlags, example string) error {
	start := time.Now()
	dir, err := os.MkdirTemp("", "orgsync-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := copyExamples(dir); err != nil {
		return err
	}
	srv, err := newSimServer(filepath.Join(dir, "sim", "org.yaml"),
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
	fmt.Fprintf(io.out, "Simulator with the example organization at %s; syncing examples/%s/orgsync.yaml into it.\n", url, example)
	cfgPath, err := demoConfig(dir, example, url)
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
	sim := srv.Stats()
	fmt.Fprintf(io.out, "\nIn sync. The simulator answered %d requests, %d of them 429; the demo took %s.\n",
		sim.Total(), sim.TooManyRequests, time.Since(start).Round(time.Millisecond))
	return nil
}

// demoSteps plans, syncs and plans again, failing when the second plan is
// not empty.
func demoSteps(ctx context.Context, io stdio, e *env) error {
	fmt.Fprintln(io.out, "\n== 1. orgsync plan: what a sync would change")
	p, err := e.printPlan(ctx, io.out, "text")
	if err != nil {
		return err
	}
	fmt.Fprintln(io.out, "\n== 2. orgsync sync: apply it")
	rep, err := e.apply(ctx, p, applyReal)
	printResult(io, rep, applyReal)
	if err != nil {
		return err
	}
	fmt.Fprintln(io.out, "\n== 3. orgsync plan again: nothing left to do")
	p2, err := e.printPlan(ctx, io.out, "text")
	if err != nil {
		return err
	}
	if !p2.plan.Empty() {
		return fmt.Errorf("the second plan is not empty: the sync did not converge")
	}
	return nil
}

// demoConfig writes the example's configuration pointed at url and returns
// its path.
func demoConfig(dir, example, url string) (string, error) {
	src := filepath.Join(dir, example, "orgsync.yaml")
	data, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, example, "demo.yaml")
	text := strings.ReplaceAll(string(data), "http://127.0.0.1:8080", url)
	return out, os.WriteFile(out, []byte(text), 0o600)
}
