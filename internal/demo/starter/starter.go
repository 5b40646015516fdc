// Package starter is the commented starter configurations `orgsync init`
// writes, one for each kind of source: the target's part, the source's
// part and the policy's part (in parts/), with the kind and the file's
// name filled in.
package starter

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/internal/util/suggest"
)

// parts holds the parts of the starter configurations: target.yaml, one
// file per kind of source, and policy.yaml.
//
//go:embed parts/*.yaml
var parts embed.FS

// sources names, for each kind of source, the file of parts/ that holds
// its sources and mapping.
var sources = map[string]string{
	"csv":             "csv.yaml",
	"yaml":            "yaml.yaml",
	"ldap":            "ldap.yaml",
	"activedirectory": "activedirectory.yaml",
	"freeipa":         "freeipa.yaml",
	"entra":           "entra.yaml",
	"okta":            "okta.yaml",
	"google":          "google.yaml",
}

// Kinds lists the kinds of source there is a starter for.
func Kinds() string { return strings.Join(Names(), ", ") }

// Names are the kinds of source there is a starter for, sorted.
func Names() []string { return slices.Sorted(maps.Keys(sources)) }

// Config returns the starter configuration for source, naming file in its
// instructions.
func Config(source, file string) (string, error) {
	part, ok := sources[source]
	if !ok {
		return "", fmt.Errorf("--source %q: use one of %s%s", source, Kinds(), suggest.DidYouMean(source, slices.Sorted(maps.Keys(sources))))
	}
	var b strings.Builder
	for _, name := range []string{"target.yaml", part, "policy.yaml"} {
		data, err := parts.ReadFile("parts/" + name)
		if err != nil {
			return "", err
		}
		b.Write(data)
	}
	return strings.NewReplacer("{{source}}", source, "{{file}}", file).Replace(b.String()), nil
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
