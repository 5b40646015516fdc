package config

import (
	"fmt"
	"path/filepath"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/csvfile"
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/ldap"
	"github.com/orgsync/orgsync/source/mapping"
	"github.com/orgsync/orgsync/source/yamlfile"
)

// Source is one entry of the sources list: exactly one of its kinds is set.
// Earlier sources win over later ones, field by field.
type Source struct {
	// Name, optional, names the source in messages.
	Name string           `yaml:"name"`
	CSV  *csvfile.Config  `yaml:"csv"`
	YAML *yamlfile.Config `yaml:"yaml"`
	LDAP *ldap.Config     `yaml:"ldap"`
	// Expressions (filter, groups, set) run over each record of the
	// source, whatever its kind.
	expr.Config `yaml:",inline"`

	// prog is the compiled expressions, set by Load.
	prog *expr.Program
}

// programmable is a source that runs expressions over its records.
type programmable interface{ Expressions(*expr.Program) }

// Kind returns the key of the kind that is set: csv, yaml or ldap.
func (s *Source) Kind() string {
	switch {
	case s.CSV != nil:
		return "csv"
	case s.YAML != nil:
		return "yaml"
	case s.LDAP != nil:
		return "ldap"
	}
	return ""
}

// kinds counts the source kinds (csv, yaml, ldap) that are set; a valid
// source sets exactly one.
func (s *Source) kinds() int {
	n := 0
	for _, set := range []bool{s.CSV != nil, s.YAML != nil, s.LDAP != nil} {
		if set {
			n++
		}
	}
	return n
}

// label names source i in messages: "sources[0] (csv users.csv)".
func (s *Source) label(i int) string {
	what := s.Name
	switch {
	case what != "":
	case s.CSV != nil:
		what = "csv " + filepath.Base(s.CSV.Path)
	case s.YAML != nil:
		what = "yaml " + filepath.Base(s.YAML.Path)
	case s.LDAP != nil:
		what = "ldap " + s.LDAP.URL
	}
	return fmt.Sprintf("sources[%d] (%s)", i, what)
}

// filePaths returns the source's file names, for resolving them relative
// to the configuration file.
func (s *Source) filePaths() []*string {
	switch {
	case s.CSV != nil:
		return []*string{&s.CSV.Path}
	case s.YAML != nil:
		return []*string{&s.YAML.Path}
	case s.LDAP != nil:
		return []*string{&s.LDAP.TLS.CAFile, &s.LDAP.Password.File}
	}
	return nil
}

// validateSources checks that there is at least one source, that each sets
// one kind, and runs each kind's own Validate.
func (c *Config) validateSources(v *validation) {
	if len(c.Sources) == 0 {
		v.errorf("sources", "required: at least one source (csv, yaml or ldap)")
	}
	for i := range c.Sources {
		s := &c.Sources[i]
		at := index("sources", i)
		if s.kinds() != 1 {
			v.errorf(at, "set exactly one of csv, yaml or ldap")
			continue
		}
		prefix := join(at, s.Kind())
		switch {
		case s.CSV != nil:
			v.fields(prefix, s.CSV.Validate())
		case s.YAML != nil:
			v.fields(prefix, s.YAML.Validate())
		case s.LDAP != nil:
			v.fields(prefix, s.LDAP.Validate())
			if s.LDAP.Password.File != "" {
				secretRef(v, join(prefix, "password"), s.LDAP.Password)
			}
		}
		p, err := expr.Compile(s.Config)
		v.fieldErrors(at, err)
		s.prog = p
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

// OpenSources opens every source in order, sharing the mapper m.
func (c *Config) OpenSources(m *mapping.Mapper, log *zap.Logger) ([]source.Source, error) {
	out := make([]source.Source, 0, len(c.Sources))
	for i := range c.Sources {
		s := &c.Sources[i]
		src, err := s.open(s.label(i), m, log)
		if err == nil {
			err = s.program(src, c.Scope.Groups)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", index("sources", i), err)
		}
		out = append(out, src)
	}
	return out, nil
}

// program hands src the source's expressions (compiled once, by Load;
// here for a Config built by hand), scoped to the run's scope groups.
func (s *Source) program(src source.Source, scopeGroups []string) error {
	if s.prog == nil && !s.Config.Empty() {
		p, err := expr.Compile(s.Config)
		if err != nil {
			return err
		}
		s.prog = p
	}
	p := s.prog.WithScope(scopeGroups)
	if p == nil {
		return nil
	}
	ps, ok := src.(programmable)
	if !ok {
		return fmt.Errorf("a %s source does not run expressions", s.Kind())
	}
	ps.Expressions(p)
	return nil
}

// open opens the source of the kind that is set.
func (s *Source) open(name string, m *mapping.Mapper, log *zap.Logger) (source.Source, error) {
	switch {
	case s.CSV != nil:
		return csvfile.Open(name, *s.CSV, m)
	case s.YAML != nil:
		return yamlfile.Open(name, *s.YAML, m)
	case s.LDAP != nil:
		return ldap.Open(name, *s.LDAP, m, log)
	}
	return nil, fmt.Errorf("no source kind set")
}
