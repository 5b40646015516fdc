package mappingtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/orgsync/orgsync/internal/util/suggest"
	"github.com/orgsync/orgsync/internal/util/yamlsyntax"
	"github.com/orgsync/orgsync/reconcile"
)

// File is one test file, read.
type File struct {
	Path string
	text []byte
	// Config is the configuration file tested.
	Config string
	// StandIns are the stand-ins for the configuration's sources, by
	// their index; a source without one is read as configured.
	StandIns map[int]StandIn
	// Org holds each organization's users now, by organization name (""
	// for the primary).
	Org map[string][]reconcile.User
	// Expect are the expectations, in order.
	Expect []Expectation
}

// StandIn stands in for a source: inline records, or a file.
type StandIn struct {
	Line    int
	Records *yaml.Node // a list of users, as a YAML source writes them
	File    string     // a CSV or YAML file (absolute)
}

// Expectation is one thing the configuration must do for a user.
type Expectation struct {
	Line int
	User string // email or username
	Org  string // the organization's name; "": the primary
	// Exactly one of these is set.
	Groups    []string // the groups the user gets there (Given)
	Given     bool
	LeftOut   bool // a source has the user, who takes no part there
	Unmatched bool // the organization has the user, no source does
}

// The keys of a test file, by where they are.
var (
	fileKeys    = []string{"config", "sources", "organization", "expect"}
	standInKeys = []string{"records", "file"}
	orgUserKeys = []string{"email", "username", "domain", "type", "firstname", "lastname", "country", "groups"}
	expectKeys  = []string{"user", "org", "groups", "leftOut", "unmatched"}
)

// Read reads the test file at path.
func Read(path string) (*File, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := &File{Path: path, text: text, StandIns: map[int]StandIn{}, Org: map[string][]reconcile.User{}}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		line, msg := yamlsyntax.Explain(text, err)
		return nil, f.errorf(line, "%s", msg)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, f.errorf(1, "a test file is a mapping with %s", strings.Join(fileKeys, ", "))
	}
	root := doc.Content[0]
	var errs []error
	each(root, fileKeys, f, &errs, func(key string, v *yaml.Node) error {
		switch key {
		case "config":
			f.Config = v.Value
		case "sources":
			return f.readStandIns(v)
		case "organization":
			return f.readOrg(v)
		case "expect":
			return f.readExpect(v)
		}
		return nil
	})
	if f.Config == "" {
		f.Config = "orgsync.yaml"
	}
	if !filepath.IsAbs(f.Config) {
		f.Config = filepath.Join(filepath.Dir(path), f.Config)
	}
	if len(f.Expect) == 0 && len(errs) == 0 {
		errs = append(errs, f.errorf(root.Line, "expect: no expectation: list what the configuration must do (user, and groups, leftOut or unmatched)"))
	}
	return f, errors.Join(errs...)
}

// errorf returns an error at line of the file.
func (f *File) errorf(line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", f.Path, line, fmt.Sprintf(format, args...))
}

// each calls fn for each key of mapping n, refusing keys not in known
// (with a suggestion), and collects the errors.
func each(n *yaml.Node, known []string, f *File, errs *[]error, fn func(key string, v *yaml.Node) error) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(known, k.Value) {
			*errs = append(*errs, f.errorf(k.Line, "unknown key %q%s; the keys here are %s", k.Value, suggest.DidYouMean(k.Value, known), strings.Join(known, ", ")))
			continue
		}
		if err := fn(k.Value, v); err != nil {
			*errs = append(*errs, err)
		}
	}
}

// readStandIns reads sources: a list whose item i stands in for the
// configuration's sources[i] ({} or null: read as configured).
func (f *File) readStandIns(n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode {
		return f.errorf(n.Line, "sources: a list, item i standing in for the configuration's sources[i]: {records: [...]} or {file: users.csv}")
	}
	var errs []error
	for i, item := range n.Content {
		if item.Tag == "!!null" {
			continue
		}
		if item.Kind != yaml.MappingNode {
			errs = append(errs, f.errorf(item.Line, "sources[%d]: a mapping with records or file", i))
			continue
		}
		s := StandIn{Line: item.Line}
		each(item, standInKeys, f, &errs, func(key string, v *yaml.Node) error {
			switch key {
			case "records":
				if v.Kind != yaml.SequenceNode {
					return f.errorf(v.Line, "sources[%d].records: a list of users, as a YAML source's users", i)
				}
				s.Records = v
			case "file":
				s.File = v.Value
				if !filepath.IsAbs(s.File) {
					s.File = filepath.Join(filepath.Dir(f.Path), s.File)
				}
			}
			return nil
		})
		if (s.Records == nil) == (s.File == "") && len(item.Content) > 0 {
			errs = append(errs, f.errorf(item.Line, "sources[%d]: give records or file, not both", i))
		}
		if len(item.Content) > 0 {
			f.StandIns[i] = s
		}
	}
	return errors.Join(errs...)
}

// readOrg reads organization: the primary's users (a list), or each
// organization's by name (a mapping of lists).
func (f *File) readOrg(n *yaml.Node) error {
	if n.Kind == yaml.SequenceNode {
		return f.readOrgUsers("", n)
	}
	if n.Kind != yaml.MappingNode {
		return f.errorf(n.Line, "organization: a list of users (the primary organization's), or lists by organization name")
	}
	var errs []error
	for i := 0; i+1 < len(n.Content); i += 2 {
		if err := f.readOrgUsers(n.Content[i].Value, n.Content[i+1]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// readOrgUsers reads the users organization org has now.
func (f *File) readOrgUsers(org string, n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode {
		return f.errorf(n.Line, "organization %s: a list of users", org)
	}
	var errs []error
	for _, item := range n.Content {
		var u struct {
			Email, Username, Domain, Type, Country string
			FirstName                              string   `yaml:"firstname"`
			LastName                               string   `yaml:"lastname"`
			Groups                                 []string `yaml:"groups"`
		}
		if item.Kind != yaml.MappingNode {
			errs = append(errs, f.errorf(item.Line, "a user is a mapping: %s", strings.Join(orgUserKeys, ", ")))
			continue
		}
		each(item, orgUserKeys, f, &errs, func(string, *yaml.Node) error { return nil })
		if err := item.Decode(&u); err != nil {
			errs = append(errs, f.errorf(item.Line, "%v", err))
			continue
		}
		typ := reconcile.FederatedID
		if u.Type != "" {
			t, ok := reconcile.ParseIdentityType(u.Type)
			if !ok {
				errs = append(errs, f.errorf(item.Line, "type %q: use federatedID, enterpriseID or vendorID", u.Type))
				continue
			}
			typ = t
		}
		if u.Email == "" && u.Username == "" {
			errs = append(errs, f.errorf(item.Line, "a user needs an email or a username"))
			continue
		}
		f.Org[org] = append(f.Org[org], reconcile.User{Type: typ, Email: u.Email, Username: u.Username, Domain: u.Domain,
			FirstName: u.FirstName, LastName: u.LastName, Country: u.Country, Groups: u.Groups})
	}
	return errors.Join(errs...)
}

// readExpect reads the expectations.
func (f *File) readExpect(n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode {
		return f.errorf(n.Line, "expect: a list of expectations")
	}
	var errs []error
	for i, item := range n.Content {
		if item.Kind != yaml.MappingNode {
			errs = append(errs, f.errorf(item.Line, "expect[%d]: a mapping with user and one of groups, leftOut, unmatched", i))
			continue
		}
		e := Expectation{Line: item.Line}
		each(item, expectKeys, f, &errs, func(key string, v *yaml.Node) error {
			var err error
			switch key {
			case "user":
				e.User = v.Value
			case "org":
				e.Org = v.Value
			case "groups":
				e.Given = true
				err = v.Decode(&e.Groups)
			case "leftOut":
				err = v.Decode(&e.LeftOut)
			case "unmatched":
				err = v.Decode(&e.Unmatched)
			}
			if err != nil {
				return f.errorf(v.Line, "expect[%d].%s: %v", i, key, err)
			}
			return nil
		})
		switch {
		case e.User == "":
			errs = append(errs, f.errorf(item.Line, "expect[%d]: user: required (an email or username)", i))
		case countTrue(e.Given, e.LeftOut, e.Unmatched) != 1:
			errs = append(errs, f.errorf(item.Line, "expect[%d]: give one of groups (the groups %s gets), leftOut: true or unmatched: true", i, e.User))
		default:
			f.Expect = append(f.Expect, e)
		}
	}
	return errors.Join(errs...)
}

func countTrue(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// recordsFile returns a YAML source file of the stand-in's records whose
// lines are the test file's: the records' own lines, under a users: key
// written above them, so that a bad record is reported on its line.
func (f *File) recordsFile(s StandIn) []byte {
	lines := bytes.Split(f.text, []byte("\n"))
	first, last := s.Records.Line, lastLine(s.Records)
	var b bytes.Buffer
	for i := 1; i < first-1; i++ {
		b.WriteString("\n")
	}
	if s.Records.Style&yaml.FlowStyle != 0 { // [{...}, ...]: re-written on its line
		flow, _ := yaml.Marshal(s.Records)
		b.WriteString("\nusers: ")
		b.Write(flow)
		return b.Bytes()
	}
	b.WriteString("users:\n")
	b.Write(lines[first-1])
	for i := first + 1; i <= last && i <= len(lines); i++ {
		b.WriteString("\n")
		b.Write(lines[i-1])
	}
	b.WriteString("\n")
	return b.Bytes()
}

// lastLine returns the last line a node or its children are on.
func lastLine(n *yaml.Node) int {
	last := n.Line
	for _, c := range n.Content {
		last = max(last, lastLine(c))
	}
	return last
}
