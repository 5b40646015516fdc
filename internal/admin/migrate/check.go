package migrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/run"
	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source/all"
)

// Check is the result of checking a migrated configuration with the checks
// of `orgsync validate` that need no network: loading it, the secrets and
// the private key a run would load, and the file sources (CSV, YAML) read
// as a run reads them. The directory servers and the service are not
// contacted.
type Check struct {
	File     string
	Loads    bool     // the configuration loads
	Problems []string // what stops it from loading, or what a run would refuse
	ToDo     []string // what to provide before the first run (secrets not set yet)
	Lines    []string // what was read
}

// OK reports whether nothing but the to-do items stands before orgsync
// validate.
func (c *Check) OK() bool { return c.Loads && len(c.Problems) == 0 }

// CheckConfig checks the configuration text data, written (or to be
// written) at name: relative paths in it are relative to name's
// directory. Secrets read by a command (exec, such as the keyring) are
// not run, and those of Windows Credential Manager are read on Windows
// only: the check says so.
func CheckConfig(ctx context.Context, data []byte, name string) *Check {
	c := &Check{File: name}
	cfg, err := config.Parse(data, name)
	var ce *config.Error
	switch {
	case errors.As(err, &ce):
		for _, p := range ce.Problems {
			if strings.Contains(p.Message, "environment variable") {
				c.ToDo = append(c.ToDo, p.String())
			} else {
				c.Problems = append(c.Problems, p.String())
			}
		}
		return c
	case err != nil:
		c.Problems = append(c.Problems, err.Error())
		return c
	}
	c.Loads = true
	for _, w := range cfg.Warnings {
		c.Lines = append(c.Lines, "warning: "+w.String())
	}
	c.preflight(cfg)
	c.readFileSources(ctx, cfg)
	return c
}

// preflight loads the secrets and the private key as a run would, except
// those it does not read here (notReadHere).
func (c *Check) preflight(cfg *config.Config) {
	copied := *cfg
	copied.Targets = append([]config.NamedTarget(nil), cfg.Targets...)
	var skipped []string
	for i := range copied.Targets {
		a := &copied.Targets[i].Auth
		for key, r := range map[string]*secret.Ref{"clientSecret": &a.ClientSecret, "privateKey": &a.PrivateKey, "privateKeyPassphrase": &a.PrivateKeyPassphrase} {
			if why := notReadHere(*r); why != "" {
				path := copied.Targets[i].Path() + ".auth." + key
				skipped = append(skipped, path)
				c.Lines = append(c.Lines, path+": "+why)
				*r = secret.Ref{}
			}
		}
	}
	for _, err := range copied.Preflight() {
		text := err.Error()
		switch {
		case hasPrefixAny(text, skipped):
		case strings.Contains(text, "environment variable"):
			c.ToDo = append(c.ToDo, text)
		default:
			c.Problems = append(c.Problems, text)
		}
	}
}

// notReadHere says why the check does not read secret r, and where it is
// read; "" when the check reads it. A command is not run (the keyring's
// may ask a person); Windows Credential Manager exists on Windows only.
func notReadHere(r secret.Ref) string {
	switch {
	case len(r.Exec) > 0:
		return fmt.Sprintf("a command (%s) gives it: not run by this check; orgsync validate runs it", strings.Join(r.Exec, " "))
	case r.WinCred != "" && runtime.GOOS != "windows":
		return fmt.Sprintf("Windows Credential Manager (%s) gives it: checked on Windows (orgsync validate there reads it)", r)
	}
	return ""
}

func hasPrefixAny(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// readFileSources reads the sources that need no network (their kind
// reads a local file: source.ReadsLocalFile), as a run does, and says
// which ones were not read.
func (c *Check) readFileSources(ctx context.Context, cfg *config.Config) {
	copied := *cfg
	copied.Sources = nil
	kinds := all.Kinds()
	for i, s := range cfg.Sources {
		k, _ := kinds.Lookup(s.Kind())
		if _, local := k.LocalFile(); local {
			copied.Sources = append(copied.Sources, s)
			continue
		}
		c.Lines = append(c.Lines, fmt.Sprintf("sources[%d] (%s): not read here (it needs the network): orgsync validate reads it", i, s.Kind()))
	}
	if len(copied.Sources) == 0 {
		return
	}
	j, err := run.New(&copied, run.Overrides{}, run.Options{})
	if err != nil {
		c.Problems = append(c.Problems, err.Error())
		return
	}
	d, err := j.ReadSources(ctx)
	if err != nil {
		c.Problems = append(c.Problems, err.Error())
		return
	}
	for _, p := range d.Problems {
		c.Problems = append(c.Problems, p.String())
	}
	for _, n := range d.Notices {
		c.Lines = append(c.Lines, "notice: "+n.String())
	}
	line := fmt.Sprintf("the file sources were read: %d desired user(s)", d.Users.Len())
	if len(d.Filtered) > 0 {
		line += fmt.Sprintf(", %d left out by the filter expression", len(d.Filtered))
	}
	c.Lines = append(c.Lines, line)
}

// writeText writes the check's section of the report.
func (c *Check) writeText(w io.Writer) {
	fmt.Fprintf(w, "\n== Check of the migrated configuration %s (orgsync validate's checks that need no network)\n", c.File)
	if c.Loads {
		fmt.Fprintln(w, "the configuration loads")
	} else {
		fmt.Fprintln(w, "the configuration does not load yet:")
	}
	for _, p := range c.Problems {
		fmt.Fprintf(w, "problem: %s\n", p)
	}
	for _, t := range c.ToDo {
		fmt.Fprintf(w, "to do: %s\n", t)
	}
	for _, l := range c.Lines {
		fmt.Fprintln(w, l)
	}
	switch {
	case !c.OK():
		fmt.Fprintln(w, "next: fix the problems above (the report says where each value came from), then run orgsync migrate's check again with orgsync validate")
	default:
		fmt.Fprintln(w, "next: provide the secrets above, then orgsync validate (reads the directory), orgsync validate --check-target (signs in to the service), and orgsync plan, which must show no surprise before the first orgsync sync (docs/migrating.md)")
	}
}
