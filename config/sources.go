package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/csvfile"
	"github.com/orgsync/orgsync/source/entra"
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/ldap"
	"github.com/orgsync/orgsync/source/mapping"
	"github.com/orgsync/orgsync/source/okta"
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
	// Entra is a Microsoft Entra ID tenant, read through Microsoft Graph.
	Entra *entra.Config `yaml:"entra"`
	// Okta is an Okta organization, read through its Management API.
	Okta *okta.Config `yaml:"okta"`
	// Expressions (filter, groups, set) run over each record (user) of
	// the source.
	expr.Config `yaml:",inline"`

	// prog is the compiled expressions, set by Load.
	prog *expr.Program
}

// programmable is a source that runs expressions over its records.
type programmable interface{ Expressions(*expr.Program) }

// Kind returns the key of the kind that is set: csv, yaml, ldap, entra or
// okta.
func (s *Source) Kind() string {
	switch {
	case s.CSV != nil:
		return "csv"
	case s.YAML != nil:
		return "yaml"
	case s.LDAP != nil:
		return "ldap"
	case s.Entra != nil:
		return "entra"
	case s.Okta != nil:
		return "okta"
	}
	return ""
}

// kinds counts the source kinds that are set; a valid source sets exactly
// one.
func (s *Source) kinds() int {
	n := 0
	for _, set := range []bool{s.CSV != nil, s.YAML != nil, s.LDAP != nil, s.Entra != nil, s.Okta != nil} {
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
	case s.Entra != nil:
		what = "entra " + s.Entra.TenantID
	case s.Okta != nil:
		what = "okta " + s.Okta.OrgURL
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
	case s.Entra != nil:
		return []*string{&s.Entra.ClientSecret.File, &s.Entra.Certificate.File, &s.Entra.PrivateKey.File}
	case s.Okta != nil:
		return []*string{&s.Okta.APIToken.File, &s.Okta.PrivateKey.File}
	}
	return nil
}

// validateSources checks that there is at least one source, that each sets
// one kind, and runs each kind's own Validate.
func (c *Config) validateSources(v *validation) {
	if len(c.Sources) == 0 {
		v.errorf("sources", "required: at least one source (csv, yaml, ldap, entra or okta)")
	}
	for i := range c.Sources {
		s := &c.Sources[i]
		at := index("sources", i)
		if s.kinds() != 1 {
			v.errorf(at, "set exactly one of csv, yaml, ldap, entra or okta")
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
			secretFiles(v, prefix, map[string]secret.Ref{"password": s.LDAP.Password})
		case s.Entra != nil:
			v.fields(prefix, s.Entra.Validate())
			secretFiles(v, prefix, map[string]secret.Ref{"clientSecret": s.Entra.ClientSecret, "certificate": s.Entra.Certificate, "privateKey": s.Entra.PrivateKey})
		case s.Okta != nil:
			v.fields(prefix, s.Okta.Validate())
			secretFiles(v, prefix, map[string]secret.Ref{"apiToken": s.Okta.APIToken, "privateKey": s.Okta.PrivateKey})
		}
		c.validateExpressions(v, s, at)
	}
}

// validateExpressions compiles the source's expressions.
func (c *Config) validateExpressions(v *validation, s *Source, at string) {
	p, err := expr.Compile(s.Config)
	v.fieldErrors(at, err)
	s.prog = p
	if key, extra := s.extraAttributes(); key != "" {
		if read, name := p.Unlisted(extra); name != "" {
			v.errorf(join(at, read), "reads user.attributes.%s, but %s does not list it (%s): add it there or fix the name",
				name, join(s.Kind(), key), listOrNone(extra))
		}
	}
}

// extraAttributes returns the attributes a directory source reads for
// its expressions and the key that lists them ("" for a file source, whose
// attributes are its other columns or keys).
func (s *Source) extraAttributes() (key string, attrs []string) {
	const key0 = "users.extraAttributes"
	switch {
	case s.LDAP != nil:
		return key0, s.LDAP.Users.ExtraAttributes
	case s.Entra != nil:
		return key0, s.Entra.Users.ExtraAttributes
	case s.Okta != nil:
		return key0, s.Okta.Users.ExtraAttributes
	}
	return "", nil
}

func listOrNone(list []string) string {
	if len(list) == 0 {
		return "it lists none"
	}
	return "it lists " + strings.Join(list, ", ")
}

// secretFiles checks that the secret files of a source (by key) can be
// read and are not readable by others; the source checked the rest.
func secretFiles(v *validation, prefix string, refs map[string]secret.Ref) {
	for _, key := range slices.Sorted(maps.Keys(refs)) {
		if r := refs[key]; r.File != "" && r.Env == "" {
			secretRef(v, join(prefix, key), r)
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
	case s.Entra != nil:
		return entra.Open(name, *s.Entra, m, log)
	case s.Okta != nil:
		return okta.Open(name, *s.Okta, m, log)
	}
	return nil, fmt.Errorf("no source kind set")
}
