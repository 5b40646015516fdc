package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
)

// starters holds the parts of the starter configurations `orgsync init`
// writes: target.yaml, one file per source kind, and policy.yaml.
//
//go:embed starter/*.yaml
var starters embed.FS

// starterSources names, for each --source of `orgsync init`, the file of
// starter/ that holds its sources and mapping.
var starterSources = map[string]string{
	"csv":             "csv.yaml",
	"yaml":            "yaml.yaml",
	"ldap":            "ldap.yaml",
	"activedirectory": "activedirectory.yaml",
	"entra":           "entra.yaml",
	"okta":            "okta.yaml",
	"google":          "google.yaml",
}

// runInit writes a commented starter configuration for one kind of source.
func runInit(_ context.Context, io stdio, args []string) int {
	fs := flag.NewFlagSet("orgsync init", flag.ContinueOnError)
	source := fs.String("source", "csv", "the kind of source: "+starterKinds())
	output := fs.String("output", defaultConfigPath, `the file to write ("-": standard output)`)
	force := fs.Bool("force", false, "overwrite the file when it exists")
	if ok, code := parseFlags(fs, args, io, 0); !ok {
		return code
	}
	text, err := starterConfig(*source, *output)
	if err != nil {
		return fail(io, fs.Name(), err)
	}
	if *output == "-" {
		fmt.Fprint(io.out, text)
		return exitOK
	}
	if err := writeNew(*output, []byte(text), *force); err != nil {
		return fail(io, fs.Name(), err)
	}
	fmt.Fprintf(io.out, "wrote %s: fill in what is marked FILL IN, then run orgsync validate --config %s\n", *output, *output)
	return exitOK
}

// starterKinds lists the kinds of source `orgsync init` knows.
func starterKinds() string {
	return strings.Join(slices.Sorted(maps.Keys(starterSources)), ", ")
}

// starterConfig returns the starter configuration for source, naming file
// in its instructions.
func starterConfig(source, file string) (string, error) {
	part, ok := starterSources[source]
	if !ok {
		return "", fmt.Errorf("--source %q: use one of %s%s", source, starterKinds(), didYouMean(source, slices.Sorted(maps.Keys(starterSources))))
	}
	var b strings.Builder
	for _, name := range []string{"target.yaml", part, "policy.yaml"} {
		data, err := starters.ReadFile("starter/" + name)
		if err != nil {
			return "", err
		}
		b.Write(data)
	}
	if file == "-" {
		file = defaultConfigPath
	}
	return strings.NewReplacer("{{source}}", source, "{{file}}", file).Replace(b.String()), nil
}

// writeNew writes data to path, readable by its owner only, refusing to
// replace an existing file unless force is set.
func writeNew(path string, data []byte, force bool) error {
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
