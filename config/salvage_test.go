package config

import (
	"errors"
	"path/filepath"
	"testing"
)

// TestSalvage: a configuration that does not load still gives its state
// directory and notifications to the failed run's record when no problem
// concerns them, and nothing when one does or the file does not parse.
func TestSalvage(t *testing.T) {
	t.Parallel()
	const base = "target:\n  orgId: 12AB@VendorOrg\n  baseURL: https://um.example.com\n  auth:\n    clientId: cid\n    clientSecret: {env: HOME}\n" +
		"sources:\n  - csv:\n      path: users.csv\n"
	for _, tc := range []struct {
		name, extra string
		salvaged    bool
	}{
		{"a bad policy", "state:\n  dir: st\npolicy:\n  unmatchedUsers: sometimes\n", true},
		{"a misspelt key", "state:\n  dir: st\nsafty:\n  maxRemovals: 1\n", true},
		{"a bad state section", "state:\n  dir: st\n  retention: forever\npolicy:\n  unmatchedUsers: sometimes\n", false},
		{"a bad notification", "state:\n  dir: st\nnotify:\n  webhooks: [{url: \"http://x\"}]\npolicy:\n  unmatchedUsers: sometimes\n", false},
		{"broken YAML", "state:\n\tdir: st\n", false},
	} {
		dir := t.TempDir()
		_, err := Parse([]byte(base+tc.extra), filepath.Join(dir, "orgsync.yaml"))
		var cerr *Error
		if !errors.As(err, &cerr) {
			t.Fatalf("%s: %v, want problems", tc.name, err)
		}
		cfg := cerr.Salvage()
		if (cfg != nil) != tc.salvaged {
			t.Errorf("%s: salvaged %v, want %v (%v)", tc.name, cfg != nil, tc.salvaged, err)
			continue
		}
		if cfg != nil && (cfg.State.Dir != filepath.Join(dir, "st") || len(cfg.Targets) != 1) {
			t.Errorf("%s: state.dir %q, targets %d; want the file's folder's st and one organization", tc.name, cfg.State.Dir, len(cfg.Targets))
		}
	}
}

// TestSalvageSources: validate still reads the sources of a file whose
// problems leave the sources, the mapping and the scope alone, and not
// when one concerns them.
func TestSalvageSources(t *testing.T) {
	t.Parallel()
	const sources = "sources:\n  - csv:\n      path: users.csv\n"
	for _, tc := range []struct {
		name, text string
		salvaged   bool
	}{
		{"no target", sources, true},
		{"a bad policy", sources + "target:\n  orgId: 12AB@VendorOrg\npolicy:\n  unmatchedUsers: sometimes\n", true},
		{"a bad source", "sources:\n  - csv:\n      path: users.csv\n      encoding: ebcdic\n", false},
		{"a bad mapping", sources + "mapping:\n  - directory: eng\n", false},
		{"a bad scope", sources + "scope:\n  usersFile: nowhere.txt\n", false},
	} {
		dir := t.TempDir()
		_, err := Parse([]byte(tc.text), filepath.Join(dir, "orgsync.yaml"))
		var cerr *Error
		if !errors.As(err, &cerr) {
			t.Fatalf("%s: %v, want problems", tc.name, err)
		}
		cfg := cerr.SalvageSources()
		if (cfg != nil) != tc.salvaged {
			t.Errorf("%s: salvaged %v, want %v (%v)", tc.name, cfg != nil, tc.salvaged, err)
			continue
		}
		if cfg != nil && (len(cfg.Sources) != 1 || len(cfg.Targets) != 1) {
			t.Errorf("%s: %d sources, %d targets; want the one source and one organization", tc.name, len(cfg.Sources), len(cfg.Targets))
		}
	}
}
