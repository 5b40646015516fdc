package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"

	"gopkg.in/yaml.v3"

	"github.com/orgsync/orgsync/internal/util/yamlsyntax"
)

// Load reads, defaults and validates the configuration file at path.
// Relative file paths in it are taken relative to the file's directory. All
// problems come back at once in an *Error; warnings are in Config.Warnings.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading configuration: %w", err)
	}
	return Parse(data, path)
}

// Parse is Load for a configuration already read; name is the file's path
// (used in messages and to resolve relative paths).
func Parse(data []byte, name string) (*Config, error) {
	fail := func(p Problem) (*Config, error) {
		return nil, &Error{File: name, Problems: []Problem{p}}
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return fail(Problem{Message: "the file is empty"})
		}
		line, msg := yamlsyntax.Explain(data, err)
		return fail(Problem{Line: line, Message: msg})
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return fail(Problem{Line: extra.Line, Message: "only one YAML document is allowed"})
	}
	return ParseNode(&doc, name)
}

// ParseNode is Parse for a document already parsed (and perhaps changed:
// the problems carry the lines its nodes have).
func ParseNode(doc *yaml.Node, name string) (*Config, error) {
	fail := func(p Problem) (*Config, error) {
		return nil, &Error{File: name, Problems: []Problem{p}}
	}
	root := doc
	if doc.Kind == yaml.DocumentNode {
		root = doc.Content[0]
	}
	w := newWalker()
	w.walk("", root, reflect.TypeOf(Config{}))
	if w.complexKey {
		return nil, &Error{File: name, Problems: w.problems}
	}
	cfg := &Config{File: name}
	cfg.presetDefaults()
	// Type errors were found by the walk, with their lines; whatever did
	// decode is still validated so that every problem is reported at once.
	var typeErr *yaml.TypeError
	if err := root.Decode(cfg); err != nil && !errors.As(err, &typeErr) {
		return fail(Problem{Line: root.Line, Message: err.Error()})
	}
	cfg.applyDefaults()
	cfg.resolvePaths(filepath.Dir(name))
	v := &validation{w: w}
	cfg.normalizeTargets(v)
	cfg.targetDefaults(w)
	cfg.validate(v)
	cfg.Warnings = v.warnings
	if problems := v.merged(); len(problems) > 0 {
		return nil, &Error{File: name, Problems: problems, decoded: cfg}
	}
	return cfg, nil
}
