package migrate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// file is one of the incumbent's configuration files, read: the main file,
// a connector file or the extension file.
type file struct {
	name string // as the report names it: relative to the main file's directory
	path string // on disk
	// settings are the file's settings by canonical path (the vendor's
	// spelling of a key made the brand's: vendor_users is adobe_users),
	// in the order they appear.
	settings map[string]*setting
	order    []*setting
	// twice are the keys given twice: the incumbent's YAML reader keeps
	// the later value.
	twice []*setting
}

// setting is one key of an incumbent file with its value.
type setting struct {
	file  *file
	path  string // as written, dotted: directory_users.groups[0].adobe_groups
	canon string // the canonical path, the key a translation asks for
	line  int
	node  *yaml.Node // the value (aliases resolved)
	leaf  bool       // a scalar, a list of scalars or an empty value
	done  bool       // the report accounts for it
	// overridden is the same key of a later file of the same connector,
	// which wins over it.
	overridden *setting
}

// keyAliases are the vendor-neutral spellings of the incumbent's keys that
// name its vendor, as this project's specification spells them, with the
// key as the incumbent publishes it.
var keyAliases = map[string]string{
	"vendor_users":            "adobe_users",
	"vendor_groups":           "adobe_groups",
	"exclude_vendor_groups":   "exclude_adobe_groups",
	"vendor_only_user_action": "adobe_only_user_action",
	"vendor_only_user_list":   "adobe_only_user_list",
	"max_vendor_only_users":   "max_adobe_only_users",
	"extended_vendor_groups":  "extended_adobe_groups",
	"vendor_console":          "adobe_console",
}

// readFile reads one incumbent file. name is how the report names it.
func readFile(path, name string) (*file, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, errors.Unwrap(err))
	}
	f := &file{name: name, path: path, settings: map[string]*setting{}}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: not YAML: %v", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) == 0 {
		return f, nil // an empty file: no settings
	}
	root := resolve(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		if root.Tag == "!!null" {
			return f, nil
		}
		return nil, fmt.Errorf("%s:%d: the file holds no settings (a YAML mapping of keys was expected)", name, root.Line)
	}
	f.walk(root, "", "")
	return f, nil
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// walk records the settings of the mapping m, whose keys are at path.
func (f *file) walk(m *yaml.Node, path, canon string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolve(m.Content[i+1])
		if k.Value == "<<" { // a merge key: its keys are this mapping's
			if v.Kind == yaml.MappingNode {
				f.walk(v, path, canon)
			}
			continue
		}
		key := k.Value
		ck := key
		if a, ok := keyAliases[key]; ok {
			ck = a
		}
		f.add(join(path, key), join(canon, ck), k.Line, v)
	}
}

// add records the setting at path with value v and, for a mapping or a
// list of mappings, the settings inside it.
func (f *file) add(path, canon string, line int, v *yaml.Node) {
	s := &setting{file: f, path: path, canon: canon, line: line, node: v}
	if earlier, ok := f.settings[canon]; ok {
		f.twice = append(f.twice, earlier)
		for _, in := range f.under(canon) {
			in.done = true
		}
		earlier.done = true
	}
	f.settings[canon] = s
	f.order = append(f.order, s)
	switch {
	case v.Kind == yaml.MappingNode && len(v.Content) > 0:
		f.walk(v, path, canon)
	case v.Kind == yaml.SequenceNode && hasCollections(v):
		for i, item := range v.Content {
			item = resolve(item)
			idx := "[" + strconv.Itoa(i) + "]"
			f.add(path+idx, canon+idx, item.Line, item)
		}
	default:
		s.leaf = true
	}
}

// hasCollections reports whether a list holds mappings or lists.
func hasCollections(seq *yaml.Node) bool {
	for _, item := range seq.Content {
		if k := resolve(item).Kind; k == yaml.MappingNode || k == yaml.SequenceNode {
			return true
		}
	}
	return false
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// get returns the setting at the canonical path, or nil.
func (f *file) get(canon string) *setting {
	if f == nil {
		return nil
	}
	return f.settings[canon]
}

// under returns the settings strictly inside the canonical path, in file
// order.
func (f *file) under(canon string) []*setting {
	var out []*setting
	for _, s := range f.order {
		if strings.HasPrefix(s.canon, canon+".") || strings.HasPrefix(s.canon, canon+"[") {
			out = append(out, s)
		}
	}
	return out
}

// children returns the direct keys of the mapping at canon (the file's
// top level for ""), or the items of the list at canon, in file order.
func (f *file) children(canon string) []*setting {
	var out []*setting
	for _, s := range f.order {
		rest, ok := strings.CutPrefix(s.canon, canon)
		switch {
		case !ok || rest == "":
			continue
		case canon == "":
		case rest[0] == '.':
			rest = rest[1:]
		case rest[0] == '[':
			rest = rest[strings.IndexByte(rest, ']')+1:]
		default:
			continue
		}
		if !strings.ContainsAny(rest, ".[") {
			out = append(out, s)
		}
	}
	return out
}

// isNull reports whether the setting has no value (key: with nothing after
// it, or ~).
func (s *setting) isNull() bool {
	return s == nil || (s.node.Kind == yaml.ScalarNode && s.node.Tag == "!!null")
}

// str returns the setting's value as a string ("" for none or for a
// collection).
func (s *setting) str() string {
	if s.isNull() || s.node.Kind != yaml.ScalarNode {
		return ""
	}
	return s.node.Value
}

// strings returns the setting's value as a list of strings: a list's
// scalar items, or a single scalar as a list of one (as the incumbent
// reads such values).
func (s *setting) strings() []string {
	if s.isNull() {
		return nil
	}
	switch s.node.Kind {
	case yaml.ScalarNode:
		return []string{s.node.Value}
	case yaml.SequenceNode:
		var out []string
		for _, item := range s.node.Content {
			if item = resolve(item); item.Kind == yaml.ScalarNode && item.Tag != "!!null" {
				out = append(out, item.Value)
			}
		}
		return out
	}
	return nil
}

// boolean returns the setting's value as YAML 1.1 reads a boolean (the
// incumbent's YAML library accepts yes/no/on/off as well as true/false),
// and whether it is one.
func (s *setting) boolean() (value, ok bool) {
	switch strings.ToLower(s.str()) {
	case "true", "yes", "on", "y":
		return true, true
	case "false", "no", "off", "n":
		return false, true
	}
	return false, false
}

// where names the setting for the report: "connector-ldap.yml:12 host".
func (s *setting) where() string {
	return fmt.Sprintf("%s:%d %s", s.file.name, s.line, s.path)
}

// origin names the setting in a comment of the migrated configuration.
func (s *setting) origin() string {
	return s.file.name + ": " + s.path
}

// relPath returns name relative to dir when it is under it, else the
// absolute path: how the report names the files the main file names.
func relPath(dir, name string) string {
	if r, err := filepath.Rel(dir, name); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return name
}

// merged is the files of one connector, in order: the incumbent merges
// them, a key of a later file winning.
type merged []*file

// name names the files for the report: the last one, which wins.
func (fs merged) name() string {
	if len(fs) == 0 {
		return "the connector file"
	}
	return fs[len(fs)-1].name
}

// get returns the setting at canon of the files (the last file that has
// it wins; the ones it overrides are accounted for as such).
func (fs merged) get(canon string) *setting {
	var found *setting
	for _, f := range fs {
		if s := f.get(canon); s != nil {
			if found != nil {
				found.overridden = s
			}
			found = s
		}
	}
	return found
}
