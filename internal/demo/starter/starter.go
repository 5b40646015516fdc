// Package starter is the commented starter configurations `orgsync init`
// writes, one for each variant of the source kinds (the registry,
// source/all): the target's part and the policy's part (in parts/) around
// the variant's own sources and mapping part, with the variant and the
// file's name filled in.
package starter

import (
	_ "embed" // the parts
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/internal/util/suggest"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/all"
)

// The parts of every starter configuration around the variant's own:
// the target's, and the policy's with the rest of the file.
var (
	//go:embed parts/target.yaml
	targetPart string
	//go:embed parts/policy.yaml
	policyPart string
)

// Kinds lists the variants of source there is a starter for.
func Kinds() string { return kindsOf(all.Kinds()) }

// Names are the variants of source there is a starter for, sorted.
func Names() []string { return names(all.Kinds()) }

// Config returns the starter configuration for the variant named source,
// naming file in its instructions (orgsync.yaml for "-", standard output).
func Config(source, file string) (string, error) { return configOf(all.Kinds(), source, file) }

// stdoutName is the file name a configuration written to standard output
// ("-") names in its comments.
const stdoutName = "orgsync.yaml"

// kindsOf lists the variants of kinds, sorted.
func kindsOf(kinds source.Kinds) string { return strings.Join(names(kinds), ", ") }

// names are the names of the variants of kinds, sorted.
func names(kinds source.Kinds) []string {
	var out []string
	for _, v := range kinds.Variants() {
		out = append(out, v.Name)
	}
	slices.Sort(out)
	return out
}

// configOf is Config for the variants of kinds.
func configOf(kinds source.Kinds, name, file string) (string, error) {
	v, ok := kinds.Variant(name)
	if !ok {
		return "", fmt.Errorf("--source %q: use one of %s%s", name, kindsOf(kinds), suggest.DidYouMean(name, names(kinds)))
	}
	if file == "-" {
		file = stdoutName
	}
	return strings.NewReplacer("{{source}}", name, "{{file}}", file, "{{stateDir}}", stateDir(file)).Replace(targetPart + v.Starter + policyPart), nil
}

// PackagedConfigDir is where the packages install the configuration, and
// PackagedStateDir the state directory they make, writable by the
// service's user (the configuration's folder is not).
const (
	PackagedConfigDir = "/etc/orgsync"
	PackagedStateDir  = "/var/lib/orgsync"
)

// stateDir is the state.dir of a configuration written to file: the
// packages' state directory for one in their configuration folder, else
// "state", beside the file.
func stateDir(file string) string {
	if abs, err := filepath.Abs(file); err == nil && filepath.Dir(abs) == PackagedConfigDir {
		return PackagedStateDir
	}
	return "state"
}

// WriteNew writes data to path, readable by its owner only, refusing to
// replace an existing file unless force is set.
func WriteNew(path string, data []byte, force bool) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists: choose another --output, or add --force to overwrite it", path)
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
