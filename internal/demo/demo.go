// Package demo sets up what `orgsync demo` syncs: the examples copied to a
// temporary directory, the simulator of the example organizations on a
// loopback port with the service's own limits, and what an example reads
// (a throwaway directory server or a fake of the vendor's service, which
// the demo registers on its own side: see servers), with the example's
// configuration pointed at them. The examples are those of the source
// registry's variants, and multiorg.
package demo

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/orgsync/orgsync/examples"
	"github.com/orgsync/orgsync/internal/demo/simserver"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/all"
	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
)

// multiorg is the demo's own example: a CSV file synced into both example
// organizations.
const multiorg = "multiorg"

// Examples are the examples the demo can sync, by --source name: every
// variant's of the source kinds and multiorg.
func Examples() map[string]Example { return examplesOf(all.Kinds()) }

// examplesOf is Examples for the variants of kinds.
func examplesOf(kinds source.Kinds) map[string]Example {
	out := map[string]Example{multiorg: {Dir: multiorg}}
	start := servers()
	for _, v := range kinds.Variants() {
		out[v.Name] = Example{Dir: v.Example.Dir, Start: start[v.Name]}
	}
	return out
}

// ExampleNames are the names of Examples, sorted: the --source values of
// the demo.
func ExampleNames() []string { return slices.Sorted(maps.Keys(Examples())) }

// Names lists ExampleNames, for a message.
func Names() string { return strings.Join(ExampleNames(), ", ") }

// Setup is a running demo: Config is the example's configuration, pointed
// at the simulator (Sim, at URL) and at what the example reads.
type Setup struct {
	Config string
	Sim    *umsim.Multi
	URL    string
	// Changes counts what the simulator was asked to change.
	Changes *simserver.Changes
	stops   []func() // in the order to call them
}

// Start sets up the demo of example, printing what it starts to out.
// Close stops it.
func Start(ctx context.Context, example Example, out io.Writer) (_ *Setup, err error) {
	dir, err := os.MkdirTemp("", "orgsync-demo-")
	if err != nil {
		return nil, err
	}
	s := &Setup{stops: []func(){func() { os.RemoveAll(dir) }}}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if err := CopyExamples(dir); err != nil {
		return nil, err
	}
	var replace []string
	if example.Start != nil {
		r, stop, err := example.Start(out, dir)
		if err != nil {
			return nil, err
		}
		s.stops = append([]func(){stop}, s.stops...)
		replace = r
	}
	if err := s.serveSim(ctx, dir); err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "Simulator with the example organizations at %s; syncing examples/%s/orgsync.yaml into them.\n", s.URL, example.Dir)
	s.Config, err = writeConfig(dir, example.Dir, append(replace, "http://127.0.0.1:8080", s.URL))
	return s, err
}

// Run starts the demo of example (Start), runs steps on it and stops it;
// then it says how many requests the simulator answered and how long the
// demo took.
func Run(ctx context.Context, example Example, out io.Writer, steps func(*Setup) error) error {
	start := time.Now()
	d, err := Start(ctx, example, out)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := steps(d); err != nil {
		return err
	}
	requests, tooMany := simserver.Totals(d.Sim)
	fmt.Fprintf(out, "\nIn sync. The simulator answered %d requests, %d of them 429; the demo took %s.\n",
		requests, tooMany, time.Since(start).Round(time.Millisecond))
	return nil
}

// serveSim serves the example organizations on a loopback port with the
// service's own limits until Close.
func (s *Setup) serveSim(ctx context.Context, dir string) error {
	sim, err := simserver.Load(filepath.Join(dir, "sim", "orgs.yaml"),
		umsim.Options{Limits: gate.Limits{Read: 25, App: 100, Window: time.Minute}})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	h, changes := simserver.Count(sim)
	go func() { served <- simserver.Serve(sctx, ln, h) }()
	s.stops = append([]func(){func() { stop(); <-served }}, s.stops...)
	s.Sim, s.URL, s.Changes = sim, "http://"+ln.Addr().String(), changes
	return nil
}

// Close stops what Start started and removes the copied examples.
func (s *Setup) Close() {
	for _, stop := range s.stops {
		stop()
	}
	s.stops = nil
}

// writeConfig writes the example's configuration with the replacements
// (old, new pairs: the simulator's address, a directory server's) and
// returns its path.
func writeConfig(dir, example string, replace []string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, example, "orgsync.yaml"))
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, example, "demo.yaml")
	text := strings.NewReplacer(replace...).Replace(string(data))
	if !stateKey.MatchString(text) {
		text += "\n" + StateSection
	}
	return out, os.WriteFile(out, []byte(text), 0o600)
}

// stateKey finds a configuration's top-level state section.
var stateKey = regexp.MustCompile(`(?m)^state:`)

// StateSection is the state directory writeConfig gives an example that
// names none, as init does: beside the demo's copy of the example, so
// its run records and history go with it.
const StateSection = "state:\n  dir: state\n"

// CopyExamples writes the embedded example files under dir, readable by
// their owner only (they include the demo's credentials).
func CopyExamples(dir string) error {
	return fs.WalkDir(examples.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := examples.FS.ReadFile(path)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o600)
	})
}
