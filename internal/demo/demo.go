// Package demo sets up what `orgsync demo` syncs: the examples copied to a
// temporary directory, the simulator of the example organizations on a
// loopback port with the service's own limits, and the server an example
// reads (a throwaway OpenLDAP, Samba Active Directory domain controller or
// 389 Directory Server with FreeIPA's tree, the Entra ID, Okta or Google
// Workspace fake), with the
// example's configuration pointed at them.
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
	"slices"
	"strings"
	"time"

	"github.com/orgsync/orgsync/examples"
	"github.com/orgsync/orgsync/internal/demo/simserver"
	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
)

// Example is one example the demo can sync.
type Example struct {
	// Dir is the example's directory: examples/<Dir>/orgsync.yaml.
	Dir string
	// start, when set, starts what the example reads (a directory server)
	// with the example files copied under dir, printing where to out. It
	// returns the replacements (old, new pairs) that point the example's
	// configuration at it, and a function that stops it.
	start func(out io.Writer, dir string) (replace []string, stop func(), err error)
}

// Examples are the examples the demo can sync, by --source name.
var Examples = map[string]Example{
	"multiorg":        {Dir: "multiorg"},
	"csv":             {Dir: "csv"},
	"yaml":            {Dir: "yaml"},
	"ldap":            {Dir: "openldap", start: startSlapd},
	"activedirectory": {Dir: "activedirectory/demo", start: startSamba},
	"freeipa":         {Dir: "freeipa/demo", start: startDirsrv},
	"entra":           {Dir: "entra", start: startEntra},
	"okta":            {Dir: "okta", start: startOkta},
	"google":          {Dir: "google", start: startGoogle},
}

// Names lists the --source values of the demo.
func Names() string {
	return strings.Join(slices.Sorted(maps.Keys(Examples)), ", ")
}

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
	if example.start != nil {
		r, stop, err := example.start(out, dir)
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
	return out, os.WriteFile(out, []byte(text), 0o600)
}

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
