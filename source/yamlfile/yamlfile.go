// Package yamlfile is the YAML source: a document with a `users:` list
// (each user a mapping with the fields of the CSV source) and optional
// `groups:` definitions that put users into directory groups by email or
// username. Directory groups become target groups through the mapping
// rules. Bad users are reported with their line and skipped; a file that
// cannot be read or parsed fails the source.
package yamlfile

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/orgsync/orgsync/internal/util/yamlsyntax"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/internal/textenc"
	"github.com/orgsync/orgsync/source/internal/userrec"
)

// Config configures a YAML source (the `yaml:` block of a source).
type Config struct {
	// Path is the YAML file. Required.
	Path string `yaml:"path"`
	// Encoding is the file's character encoding: utf-8 (the default),
	// utf-16 (byte order mark detected), utf-16le, utf-16be, latin1 or
	// windows-1252. A value that is not UTF-8 in a utf-8 file makes its
	// user bad.
	Encoding string `yaml:"encoding,omitempty"`
	// Defaults for fields a user leaves empty.
	source.Defaults `yaml:",inline"`
}

// Validate reports every problem of the configuration, each named by its
// key relative to the block ("path", "defaultCountry").
func (c *Config) Validate() []diag.FieldError {
	var errs []diag.FieldError
	if strings.TrimSpace(c.Path) == "" {
		errs = append(errs, diag.FieldError{Field: "path", Reason: "required: the YAML file to read"})
	}
	if err := textenc.Check(c.Encoding); err != nil {
		errs = append(errs, diag.FieldError{Field: "encoding", Reason: err.Error()})
	}
	return append(errs, c.Defaults.Validate()...)
}

// Label returns the file's base name (source.Config).
func (c *Config) Label() string { return filepath.Base(c.Path) }

// Uses returns the file; every key of a user that is no user field is an
// extra attribute (source.Config).
func (c *Config) Uses() source.Uses { return source.Uses{Files: []*string{&c.Path}} }

// Source reads one YAML file.
// With expressions (source.Options.Expressions), every key of a user that
// is no user field is an extra attribute (a single value) instead of an
// unknown field.
type Source struct {
	name string
	cfg  Config
	opts source.Options
}

// Open returns the source named name for a valid configuration
// (source.Config). The file is read by Read, each time anew.
func (c *Config) Open(name string, o source.Options) (source.Source, error) {
	if err := diag.Err(c.Validate()); err != nil {
		return nil, err
	}
	return &Source{name: name, cfg: *c, opts: o}, nil
}

// Name returns the source's name.
func (s *Source) Name() string { return s.name }

// Read reads the whole file. It fails when the file cannot be read or
// parsed, has no users list, or holds no valid user.
func (s *Source) Read(ctx context.Context) (*source.Result, error) {
	data, err := os.ReadFile(s.cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the YAML file: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", s.cfg.Path, err)
	}
	return s.parse(data)
}

// parse reads a whole document named s.cfg.Path.
func (s *Source) parse(data []byte) (*source.Result, error) {
	data, err := textenc.Decode(s.cfg.Encoding, data)
	if err != nil {
		return nil, fmt.Errorf("%s: decoding %s: %w", s.cfg.Path, s.cfg.Encoding, err)
	}
	// The YAML parser refuses a document that is not UTF-8 as a whole: each
	// run of bad bytes becomes U+FFFD, and a value holding one is a bad
	// value of its user.
	invalid := !utf8.Valid(data)
	if invalid {
		data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line, msg := yamlsyntax.Explain(data, err)
		return nil, fmt.Errorf("%s:%d: %s", s.cfg.Path, line, msg)
	}
	users, groups, err := s.sections(&doc)
	if err != nil {
		return nil, err
	}
	f := &fileReader{b: userrec.New(s.name, s.cfg.Path, userrec.DefaultNames(), s.cfg.Defaults, s.opts), notUTF8: invalid, attributes: s.opts.Expressions != nil}
	f.readUsers(users)
	if groups != nil {
		f.readGroups(groups)
	}
	for i := range f.records {
		f.b.Add(&f.records[i])
	}
	return f.b.Result()
}

// sections returns the users sequence and the groups sequence (nil when
// absent) of the document.
func (s *Source) sections(doc *yaml.Node) (users, groups *yaml.Node, err error) {
	if len(doc.Content) == 0 {
		return nil, nil, fmt.Errorf("%s: the file is empty: want a document with a users: list", s.cfg.Path)
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("%s:%d: want a mapping with users: and groups:, not %s", s.cfg.Path, root.Line, kind(root))
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, val := root.Content[i], resolve(root.Content[i+1])
		switch key.Value {
		case "users":
			users = val
		case "groups":
			groups = val
		default:
			return nil, nil, fmt.Errorf("%s:%d: unknown key %q: want users or groups", s.cfg.Path, key.Line, key.Value)
		}
		if val.Kind != yaml.SequenceNode && !isNull(val) {
			return nil, nil, fmt.Errorf("%s:%d: %s must be a list, not %s", s.cfg.Path, val.Line, key.Value, kind(val))
		}
	}
	if users == nil {
		return nil, nil, fmt.Errorf("%s:%d: no users: list", s.cfg.Path, root.Line)
	}
	return users, groups, nil
}

// fileReader collects the records of one document.
type fileReader struct {
	b          *userrec.Builder
	records    []userrec.Record
	notUTF8    bool // the file held bytes that are not UTF-8, now U+FFFD
	attributes bool // keys of no field are extra attributes
}

// invalid returns where the scalar n holds a byte that was not UTF-8 (the
// 1-based character), 0 when none.
func (f *fileReader) invalid(n *yaml.Node) int {
	if !f.notUTF8 {
		return 0
	}
	i := strings.IndexRune(n.Value, utf8.RuneError)
	if i < 0 {
		return 0
	}
	return utf8.RuneCountInString(n.Value[:i]) + 1
}

func (f *fileReader) readUsers(users *yaml.Node) {
	for _, n := range users.Content {
		n = resolve(n)
		if n.Kind != yaml.MappingNode {
			f.b.Skip(n.Line, fmt.Sprintf("a user must be a mapping of fields (email: …, firstname: …), not %s", kind(n)))
			continue
		}
		f.records = append(f.records, f.record(n))
	}
}

// record turns a user's mapping node into a record; with f.attributes, a
// key of no field is an extra attribute rather than a mistake.
func (f *fileReader) record(n *yaml.Node) userrec.Record {
	r := userrec.Record{Line: n.Line}
	names := userrec.DefaultNames()
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], resolve(n.Content[i+1])
		fl := fieldOf(key.Value, names)
		first, twice := seen[key.Value]
		seen[key.Value] = cmp.Or(first, key.Line)
		switch {
		case twice:
			r.Extra = append(r.Extra, userrec.Issue{Line: key.Line, Field: key.Value, Reason: fmt.Sprintf(
				"given twice for this user (first on line %d): if this starts another user, begin it with '- '; otherwise remove one of the two", first)})
		case fl < 0 && f.attributes && val.Kind == yaml.ScalarNode:
			if r.Attributes == nil {
				r.Attributes = map[string]string{}
			}
			r.Attributes[key.Value] = scalar(val)
		case fl < 0 && f.attributes:
			r.Extra = append(r.Extra, userrec.Issue{Line: val.Line, Field: key.Value, Reason: "an extra attribute must be a single value, not " + kind(val)})
		case fl < 0:
			r.Extra = append(r.Extra, userrec.Issue{Line: key.Line, Field: key.Value,
				Reason: "unknown field: use " + strings.Join(names[:], ", ")})
		case fl == userrec.Groups:
			r.Lines[fl] = val.Line
			r.Groups = f.groupNames(val, &r)
		case val.Kind != yaml.ScalarNode:
			r.Extra = append(r.Extra, userrec.Issue{Line: val.Line, Field: key.Value, Reason: "must be a single value, not " + kind(val)})
		default:
			r.Lines[fl], r.Values[fl] = val.Line, scalar(val)
			f.checkText(val, key.Value, &r)
		}
	}
	return r
}

// checkText adds an issue to r when the scalar val of its field held bytes
// that are not UTF-8.
func (f *fileReader) checkText(val *yaml.Node, field string, r *userrec.Record) {
	if at := f.invalid(val); at > 0 {
		r.Extra = append(r.Extra, userrec.Issue{Line: val.Line, Field: field, Reason: textenc.Invalid(at)})
	}
}

// groupNames returns the directory groups of a user's groups value: a list
// of names or one name.
func (f *fileReader) groupNames(val *yaml.Node, r *userrec.Record) []string {
	if val.Kind == yaml.ScalarNode {
		f.checkText(val, "groups", r)
		if g := strings.TrimSpace(scalar(val)); g != "" {
			return []string{g}
		}
		return nil
	}
	if val.Kind != yaml.SequenceNode {
		r.Extra = append(r.Extra, userrec.Issue{Line: val.Line, Field: "groups", Reason: "must be a list of group names, not " + kind(val)})
		return nil
	}
	var out []string
	for _, g := range val.Content {
		g = resolve(g)
		if g.Kind != yaml.ScalarNode {
			r.Extra = append(r.Extra, userrec.Issue{Line: g.Line, Field: "groups", Reason: "must be a list of group names, not a list of " + kind(g)})
			continue
		}
		f.checkText(g, "groups", r)
		if name := strings.TrimSpace(scalar(g)); name != "" {
			out = append(out, name)
		}
	}
	return out
}

// readGroups adds each defined group to the records of its members. A
// member is known by its email or username (case-insensitive).
func (f *fileReader) readGroups(groups *yaml.Node) {
	byID := map[string][]int{}
	for i := range f.records {
		for _, id := range []string{f.records[i].Values[userrec.Email], f.records[i].Values[userrec.Username]} {
			if id = strings.ToLower(strings.TrimSpace(id)); id != "" {
				byID[id] = append(byID[id], i)
			}
		}
	}
	for gi, g := range groups.Content {
		g = resolve(g)
		at := fmt.Sprintf("groups[%d]", gi)
		name, members, ok := f.groupDef(at, g)
		if !ok {
			continue
		}
		for mi, m := range members {
			m = resolve(m)
			recs := byID[strings.ToLower(strings.TrimSpace(scalar(m)))]
			switch {
			case m.Kind != yaml.ScalarNode:
				f.b.Report(m.Line, fmt.Sprintf("%s.members[%d]", at, mi), "must be an email or username, not "+kind(m))
			case len(recs) == 0:
				f.b.Report(m.Line, fmt.Sprintf("%s.members[%d]", at, mi),
					fmt.Sprintf("no user with the email or username %q in this file's users", m.Value))
			}
			for _, ri := range recs {
				f.records[ri].Groups = append(f.records[ri].Groups, name)
			}
		}
	}
}

// groupDef checks one group definition and returns its name and members.
func (f *fileReader) groupDef(at string, g *yaml.Node) (name string, members []*yaml.Node, ok bool) {
	if g.Kind != yaml.MappingNode {
		f.b.Report(g.Line, at, "a group must be a mapping with name: and members:, not "+kind(g))
		return "", nil, false
	}
	var problems []string
	for i := 0; i+1 < len(g.Content); i += 2 {
		key, val := g.Content[i], resolve(g.Content[i+1])
		switch key.Value {
		case "name":
			if val.Kind != yaml.ScalarNode {
				problems = append(problems, "name must be a group name, not "+kind(val))
			}
			if at := f.invalid(val); at > 0 {
				problems = append(problems, "name is "+textenc.Invalid(at))
			}
			name = strings.TrimSpace(scalar(val))
		case "members":
			if val.Kind == yaml.SequenceNode {
				members = val.Content
			} else if !isNull(val) {
				problems = append(problems, "members must be a list of emails or usernames, not "+kind(val))
			}
		default:
			problems = append(problems, fmt.Sprintf("unknown key %q: use name and members", key.Value))
		}
	}
	if name == "" {
		problems = append(problems, "name is required")
	}
	if len(problems) > 0 {
		f.b.Report(g.Line, at, strings.Join(problems, "; ")+"; this group definition is skipped")
		return "", nil, false
	}
	return name, members, true
}

// fieldOf returns the field a key names (letter case ignored), or -1.
func fieldOf(key string, names [userrec.NumFields]string) userrec.Field {
	for f, n := range names {
		if strings.EqualFold(key, n) {
			return userrec.Field(f)
		}
	}
	return -1
}

// scalar returns a scalar node's value, "" for null.
func scalar(n *yaml.Node) string {
	if n.Kind != yaml.ScalarNode || isNull(n) {
		return ""
	}
	return n.Value
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// kind names a node's kind for messages.
func kind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	return fmt.Sprintf("the value %q", n.Value)
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}
