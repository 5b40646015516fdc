package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/all"
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/mapping"
)

// Source is one entry of the sources list: its name, its expressions and
// the block of exactly one source kind, under the kind's key (the kinds
// are listed in package source/all). Earlier sources win over later ones,
// field by field.
type Source struct {
	// Name, optional, names the source in messages.
	Name string `yaml:"name"`
	// Expressions (filter, groups, set) run over each record (user) of
	// the source.
	expr.Config `yaml:",inline"`

	// kind is the key of the kind set, settings its decoded block; kinds
	// counts the kinds set (a valid source sets exactly one).
	kind     string
	settings source.Config
	kinds    int
	// prog is the compiled expressions, set by Load.
	prog *expr.Program
}

// UnmarshalYAML decodes the name, the expressions and the block of each
// kind set, the first into the kind's own configuration type. Values of
// the wrong type were reported by the walk, with their lines: they are
// left out here, and the rest is decoded for validation.
func (s *Source) UnmarshalYAML(n *yaml.Node) error {
	var plain struct {
		Name        string `yaml:"name"`
		expr.Config `yaml:",inline"`
	}
	var blocks map[string]yaml.Node
	if err := decodeValid(n, &plain); err != nil {
		return err
	}
	if err := decodeValid(n, &blocks); err != nil {
		return err
	}
	s.Name, s.Config = plain.Name, plain.Config
	for _, k := range all.Kinds() {
		b, ok := blocks[k.Key]
		if !ok || isNull(&b) {
			continue
		}
		if s.kinds++; s.kinds > 1 {
			continue
		}
		s.kind, s.settings = k.Key, k.New()
		if err := decodeValid(&b, s.settings); err != nil {
			return err
		}
	}
	return nil
}

// decodeValid decodes n into out, leaving out the values of the wrong type.
func decodeValid(n *yaml.Node, out any) error {
	var typeErr *yaml.TypeError
	if err := n.Decode(out); err != nil && !errors.As(err, &typeErr) {
		return err
	}
	return nil
}

// isNull reports whether n (an alias resolved) is an explicit empty value.
func isNull(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// Kind returns the key of the kind that is set ("" when none is).
func (s *Source) Kind() string { return s.kind }

// kindKeys lists the keys of the source kinds for messages, in the
// registry's order: "csv, yaml, ldap, entra, okta or google".
func kindKeys() string {
	keys := all.Kinds().Keys()
	if len(keys) < 2 {
		return strings.Join(keys, "")
	}
	return strings.Join(keys[:len(keys)-1], ", ") + " or " + keys[len(keys)-1]
}

// label names source i in messages: "sources[0] (csv users.csv)".
func (s *Source) label(i int) string {
	what := s.Name
	if what == "" && s.settings != nil {
		what = s.kind + " " + s.settings.Label()
	}
	return fmt.Sprintf("sources[%d] (%s)", i, what)
}

// filePaths returns the source's file names, secret files included, for
// resolving them relative to the configuration file.
func (s *Source) filePaths() []*string {
	if s.settings == nil {
		return nil
	}
	return s.settings.Uses().Files
}

// secretRefs lists the source's secret references.
func (s *Source) secretRefs() []*secret.Ref {
	if s.settings == nil {
		return nil
	}
	var out []*secret.Ref
	for _, r := range s.settings.Uses().Secrets {
		out = append(out, r)
	}
	return out
}

// validateSources checks that there is at least one source, that each sets
// one kind, and runs each kind's own Validate.
func (c *Config) validateSources(v *validation) {
	if len(c.Sources) == 0 {
		v.errorf("sources", "required: at least one source (%s)", kindKeys())
	}
	for i := range c.Sources {
		s := &c.Sources[i]
		at := index("sources", i)
		if s.kinds != 1 {
			v.errorf(at, "set exactly one of %s", kindKeys())
			continue
		}
		prefix := join(at, s.kind)
		v.fields(prefix, s.settings.Validate())
		secretFiles(v, prefix, s.settings.Uses().Secrets)
		c.validateExpressions(v, s, at)
	}
}

// validateExpressions compiles the source's expressions.
func (c *Config) validateExpressions(v *validation, s *Source, at string) {
	p, err := expr.Compile(s.Config)
	v.fieldErrors(at, err)
	s.prog = p
	if uses := s.settings.Uses(); uses.ExtraAttributesKey != "" {
		if key, read := p.Unlisted(uses.ExtraAttributes); read != "" {
			v.errorf(join(at, key), "reads %s, but %s does not list it (%s): add it there or fix the name",
				read, join(s.kind, uses.ExtraAttributesKey), listOrNone(uses.ExtraAttributes))
		}
	}
}

func listOrNone(list []string) string {
	if len(list) == 0 {
		return "it lists none"
	}
	return "it lists " + strings.Join(list, ", ")
}

// secretFiles checks that the secret files of a source (by key) can be
// read and are not readable by others; the source checked the rest.
func secretFiles(v *validation, prefix string, refs map[string]*secret.Ref) {
	for _, key := range slices.Sorted(maps.Keys(refs)) {
		if r := refs[key]; r.File != "" && r.Env == "" {
			secretRef(v, join(prefix, key), *r)
		} else {
			v.envSet(join(prefix, key), *r)
		}
	}
}

// Mapper compiles the mapping rules (already validated by Load).
func (c *Config) Mapper() (*mapping.Mapper, error) {
	m, err := mapping.New(c.Mapping)
	if err != nil {
		return nil, fmt.Errorf("mapping: %w", err)
	}
	return m, nil
}

// OpenSources opens every source in order with o, each with its own
// expressions, scoped to o.ScopeGroups (the run's scope groups).
func (c *Config) OpenSources(o source.Options) ([]source.Source, error) {
	out := make([]source.Source, 0, len(c.Sources))
	for i := range c.Sources {
		src, err := c.Sources[i].open(i, o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", index("sources", i), err)
		}
		out = append(out, src)
	}
	return out, nil
}

// open opens source i of the configuration with its expressions (compiled
// by Load).
func (s *Source) open(i int, o source.Options) (source.Source, error) {
	if s.settings == nil {
		return nil, fmt.Errorf("set exactly one of %s", kindKeys())
	}
	o.Expressions = s.prog.WithScope(o.ScopeGroups)
	o.Key = index("sources", i) + "." + s.kind
	return s.settings.Open(s.label(i), o)
}
