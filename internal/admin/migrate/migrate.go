// Package migrate turns the configuration of the incumbent tool (the
// vendor's Python "User Sync Tool": user-sync-config.yml, its connector
// files and its extension file) into an orgsync configuration, setting by
// setting, and reports what became of each setting: its translation, or
// why it has none and what comes closest.
//
// The incumbent's keys are accepted as it publishes them (adobe_users,
// adobeID, AdobeOrg) and as this project spells the vendor (vendor_users,
// vendorID, VendorOrg). Secrets are never copied: each becomes a secret
// reference (an environment variable, or the keyring command for what the
// incumbent kept in the OS keyring), with a note on how to provide it.
// The written configuration carries, on each line, the setting it came
// from; Check then runs on it the checks of `orgsync validate` that need
// no network.
package migrate

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Options say how the incumbent is run and where the result goes.
type Options struct {
	// Flags are the incumbent's command-line options as it is run (its
	// cron job or script), e.g. --process-groups --users mapped; they
	// win over the main file's invocation_defaults, as with the
	// incumbent.
	Flags []string
	// Out is the file the configuration is to be written to: the file
	// paths in it are written relative to its directory. "" means the
	// current directory.
	Out string
	// AcceptDifferences accepts the differences that remove a protection
	// or apply changes the incumbent would not: the configuration's
	// header lists them, and they no longer make migrate fail.
	AcceptDifferences bool
	// Keyring is where the incumbent's OS keyring entries are read from:
	// KeyringWincred (Windows Credential Manager, the incumbent's keyring
	// on Windows) or KeyringCommand (Python's keyring command). "" is
	// Credential Manager when migrate runs on Windows, the command
	// elsewhere.
	Keyring string
}

// Result is a migrated configuration and its report.
type Result struct {
	Config []byte
	Report *Report
}

// migration is the state of one migration.
type migration struct {
	main   *file
	dir    string // the main file's directory: the incumbent resolves its file names there
	outDir string // the migrated configuration's directory
	rep    *Report
	root   *node // the migrated configuration
	inv    *invocation
	files  []*file // every incumbent file read, the main file first
	// targetNames renames the incumbent's secondary organizations to
	// orgsync names (where they differ).
	targetNames map[string]string
	multi       bool // several organizations (targets:)
	// secondaries are the secondary organizations' items of targets:.
	secondaries []secondary
	// mapped are the directory groups the mapping names (for --users
	// mapped) and known the target groups the incumbent knows (its
	// mapping's, the extension's and the excluded ones), for the hook.
	mapped []string
	known  []string
	// managed are the groups of policy.managedGroups (qualified).
	managed []string
	// extraAttributes are the directory attributes the extension reads.
	extraAttributes []string
	// filters are the parts of the source's filter expression, and-ed.
	filters []string
	// head are comment lines for the top of the configuration: what a
	// reader must know before using it (test mode).
	head []string
	// keyring is where keyring entries are read from (Options.Keyring,
	// resolved).
	keyring string
}

// Migrate reads the incumbent's main configuration file at path (and the
// files it names, relative to it) and returns the orgsync configuration
// and the report. An error means the input could not be read at all; a
// setting that cannot be translated is in the report, never dropped.
func Migrate(path string, opt Options) (*Result, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	m := &migration{dir: filepath.Dir(abs), rep: &Report{Main: path, Accepted: opt.AcceptDifferences}, root: &node{}, targetNames: map[string]string{}}
	if m.keyring, err = keyringFor(opt.Keyring); err != nil {
		return nil, err
	}
	m.outDir, _ = filepath.Abs(filepath.Dir(opt.Out))
	if m.main, err = readFile(abs, filepath.Base(abs)); err != nil {
		return nil, err
	}
	m.files = append(m.files, m.main)
	if err := m.refuseV1(); err != nil {
		return nil, err
	}
	if err := m.refuseOther(); err != nil {
		return nil, err
	}
	if m.inv, err = m.invocation(opt.Flags); err != nil {
		return nil, err
	}
	m.translateTargets()
	m.translateDirectory()
	m.translatePolicy()
	m.translateLogging()
	m.secondaryPolicies()
	m.reportUnknown()
	return &Result{Config: []byte(m.render()), Report: m.rep}, nil
}

// refuseV1 stops at a configuration of the incumbent's first version,
// which its own second version refuses too.
func (m *migration) refuseV1() error {
	for _, k := range []string{"dashboard", "directory"} {
		if s := m.main.get(k); s != nil {
			return fmt.Errorf("%s: %s is a setting of the incumbent's version 1, which its version 2 refuses too: convert the file to version 2 first (the incumbent's documentation has the steps)", s.where(), s.path)
		}
	}
	return nil
}

// readNamed reads a file the main file names at s (a connector or the
// extension), relative to the main file's directory.
func (m *migration) readNamed(s *setting, name string) (*file, error) {
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(m.dir, p)
	}
	f, err := readFile(p, relPath(m.dir, p))
	if err != nil {
		return nil, fmt.Errorf("%s names %s: %w", s.where(), name, err)
	}
	m.files = append(m.files, f)
	return f, nil
}

// reportUnknown reports, as unknown, every setting no translation
// accounted for (a block's keys each on their own).
func (m *migration) reportUnknown() {
	for _, f := range m.files {
		for _, s := range f.twice {
			m.rep.Entries = append(m.rep.Entries, Entry{Where: s.where(), Value: display(s), Outcome: NotUsed, Note: "the key is given again later in the file: the incumbent uses the later value"})
		}
		for _, s := range f.order {
			if !s.done && s.overridden != nil {
				m.rep.add(NotUsed, nil, "the connector's later file "+s.overridden.file.name+" sets it too, and wins", s)
				continue
			}
			if !s.done && s.leaf {
				m.rep.add(Unknown, nil, "not a setting migrate knows (a misspelt key, or one of a newer version of the incumbent): not translated; check whether the incumbent uses it", s)
			}
		}
	}
}

// tree returns s and every setting inside it: what one report entry about
// a block accounts for.
func tree(s *setting) []*setting {
	if s == nil {
		return nil
	}
	return append([]*setting{s}, s.file.under(s.canon)...)
}

// pathFor returns the path a file of the incumbent (absolute, or relative
// to the main file's directory) is written as in the migrated
// configuration: relative to its directory when that is shorter.
func (m *migration) pathFor(name string) string {
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(m.dir, p)
	}
	if r, err := filepath.Rel(m.outDir, p); err == nil && !strings.HasPrefix(r, "../..") {
		return r
	}
	return p
}

// render returns the migrated configuration's text.
func (m *migration) render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# orgsync configuration migrated by `orgsync migrate` from %s on %s.\n", m.main.name, time.Now().Format("2006-01-02"))
	b.WriteString("# The comment on each line names the incumbent setting it came from; the migration\n")
	b.WriteString("# report lists every setting, what became of it and what orgsync does differently.\n")
	b.WriteString("# Next: orgsync validate, then orgsync validate --check-target, then orgsync plan (docs/migrating.md).\n")
	for _, h := range m.head {
		b.WriteString("# " + h + "\n")
	}
	if blocking := m.rep.Blocking(); len(blocking) > 0 {
		if m.rep.Accepted {
			fmt.Fprintf(&b, "# %d difference(s) accepted with orgsync migrate --accept-differences (the migration report explains each):\n", len(blocking))
		} else {
			fmt.Fprintf(&b, "# NOT READY: %d difference(s) not accepted yet (orgsync migrate exited 1; the migration report explains each):\n", len(blocking))
		}
		for _, e := range blocking {
			fmt.Fprintf(&b, "#   - %s: %s, %s\n", strings.ReplaceAll(e.Where, "\n", " "), e.Outcome, e.Risk)
		}
	}
	m.root.write(&b, 0, false)
	return b.String()
}
