package demo

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/all"
	"github.com/orgsync/orgsync/source/csvfile"
	"github.com/orgsync/orgsync/source/okta/oktafake"
)

// TestStartPointsTheExampleAtItsServers: the okta example's configuration
// loads, names the simulator and the fake started for it (with the demo
// secret in a file, never in the configuration), and Close stops them and
// removes the copied examples.
func TestStartPointsTheExampleAtItsServers(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	s, err := Start(context.Background(), Examples()["okta"], &out)
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), s.URL) || !strings.Contains(string(text), "apiToken: {file: demo-secret}") ||
		strings.Contains(string(text), oktafake.DemoToken) {
		t.Errorf("configuration not pointed at the demo's servers, or holding the secret:\n%s", text)
	}
	cfg, err := config.Load(s.Config)
	if err != nil {
		t.Fatalf("the demo configuration does not load: %v", err)
	}
	if sd := cfg.State.Dir; !strings.HasPrefix(sd, filepath.Dir(filepath.Dir(s.Config))) {
		t.Errorf("the demo keeps its run records in %q, not beside its copy of the example", sd)
	}
	if !strings.Contains(out.String(), "Fake Okta organization at") || !strings.Contains(out.String(), s.URL) {
		t.Errorf("output: %q", out.String())
	}
	resp, err := http.Get(s.URL + "/v2/usermanagement/organizations/1234ABCD@VendorOrg/users/0")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	s.Close()
	if _, err := os.Stat(s.Config); !os.IsNotExist(err) {
		t.Errorf("the copied examples are left after Close: %v", err)
	}
	if _, err := http.Get(s.URL); err == nil {
		t.Error("the simulator still answers after Close")
	}
}

// TestRunStopsTheDemoAndCountsTheRequests: Run gives the steps a running
// demo, stops it after them, and counts the simulator's requests; a step's
// error is Run's, without the count.
func TestRunStopsTheDemoAndCountsTheRequests(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	var ran *Setup
	err := Run(context.Background(), Examples()["csv"], &out, func(d *Setup) error {
		ran = d
		resp, err := http.Get(d.URL + "/v2/usermanagement/organizations/1234ABCD@VendorOrg/users/0")
		if err == nil {
			resp.Body.Close()
		}
		return err
	})
	if err != nil || ran == nil {
		t.Fatalf("Run: %v", err)
	}
	if !strings.Contains(out.String(), "In sync. The simulator answered 1 requests, 0 of them 429; the demo took ") {
		t.Errorf("output: %q", out.String())
	}
	if _, err := os.Stat(ran.Config); !os.IsNotExist(err) {
		t.Errorf("the demo is left running after Run: %v", err)
	}
	out.Reset()
	failed := errors.New("a step failed")
	if err := Run(context.Background(), Examples()["csv"], &out, func(*Setup) error { return failed }); err != failed || strings.Contains(out.String(), "In sync") {
		t.Errorf("a failing step: %v\n%s", err, out.String())
	}
}

// TestANewKindIsOneRegistryLine: a kind added to the registry, with its
// variant's example, is a demo with nothing else changed here; the demo
// offers every variant of the registry, and multiorg.
func TestANewKindIsOneRegistryLine(t *testing.T) {
	t.Parallel()
	hr := source.Variant{Name: "hr", Example: source.Example{Dir: "csv"}}
	got := examplesOf(append(all.Kinds(), source.KindOf[csvfile.Config]("hr", hr)))
	if e, ok := got["hr"]; !ok || e.Dir != "csv" {
		t.Errorf("the demo of the new kind: %+v, %v", e, ok)
	}
	want := []string{multiorg}
	for _, v := range all.Kinds().Variants() {
		want = append(want, v.Name)
	}
	if names := slices.Sorted(maps.Keys(Examples())); !slices.Equal(names, slices.Sorted(slices.Values(want))) {
		t.Errorf("demo examples %v, want the registry's variants and multiorg %v", names, want)
	}
}

// TestServersAreTheRegistrysVariants: every server the demo registers
// starts the example of a variant of the registry (a renamed variant
// would otherwise lose its server silently).
func TestServersAreTheRegistrysVariants(t *testing.T) {
	t.Parallel()
	for name := range servers() {
		if _, ok := all.Kinds().Variant(name); !ok {
			t.Errorf("the demo registers a server for %q, which is no variant of the registry", name)
		}
		if Examples()[name].Start == nil {
			t.Errorf("the example %q has no server", name)
		}
	}
}
