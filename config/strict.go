package config

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/orgsync/orgsync/internal/util/suggest"
	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source/all"
)

// walker checks a YAML node tree against a Go type before it is decoded: it
// finds unknown keys and values of the wrong kind, each with its path and
// line, and records the line of every key path for later messages.
type walker struct {
	lines    map[string]int
	problems []Problem
	// complexKey is set when a mapping key is itself a mapping or a list:
	// such a document is not decoded at all (yaml.v3 panics merging one).
	complexKey bool
	// meant are the paths of the known keys that unknown keys were
	// reported as likely misspellings of.
	meant []string
}

var (
	unmarshalerType = reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()
	durationType    = reflect.TypeOf(time.Duration(0))
	secretRefType   = reflect.TypeOf(secret.Ref{})
	sourceType      = reflect.TypeOf(Source{})
)

// newWalker returns a walker with no problems found yet.
func newWalker() *walker { return &walker{lines: map[string]int{}} }

// fail records a problem at path, on n's line.
func (w *walker) fail(path string, n *yaml.Node, format string, args ...any) {
	w.problems = append(w.problems, Problem{Path: path, Line: n.Line, Message: fmt.Sprintf(format, args...)})
}

// walk checks node n, found at path, against type t.
func (w *walker) walk(path string, n *yaml.Node, t reflect.Type) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if _, seen := w.lines[path]; !seen {
		w.lines[path] = n.Line
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return // an explicit empty value leaves the default
	}
	// A Source decodes itself (its kind's block into the kind's type) but
	// is checked key by key like any struct.
	if reflect.PointerTo(t).Implements(unmarshalerType) && t != sourceType || t == durationType {
		w.leaf(path, n, t)
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		w.walk(path, n, t.Elem())
	case reflect.Interface:
	case reflect.Struct:
		w.walkStruct(path, n, t)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			w.fail(path, n, "must be a list")
			return
		}
		for i, item := range n.Content {
			w.walk(index(path, i), item, t.Elem())
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			w.fail(path, n, "must be a mapping")
			return
		}
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if w.plainKey(path, n.Content[i]) && !w.repeated(path, n.Content[i], seen) {
				w.walk(join(path, n.Content[i].Value), n.Content[i+1], t.Elem())
			}
		}
	default:
		w.leaf(path, n, t)
	}
}

// leaf decodes a scalar value into a fresh value of type t to check it. The
// message never repeats the value (it could be a secret written inline).
func (w *walker) leaf(path string, n *yaml.Node, t reflect.Type) {
	if n.Kind != yaml.ScalarNode && !reflect.PointerTo(t).Implements(unmarshalerType) {
		w.fail(path, n, "must be %s, not a %s", kindName(t), nodeKind(n))
		return
	}
	err := n.Decode(reflect.New(t).Interface())
	var te *yaml.TypeError
	switch {
	case err == nil:
	case !reflect.PointerTo(t).Implements(unmarshalerType):
		w.fail(path, n, "must be %s", kindName(t))
	case errors.As(err, &te):
		w.fail(path, n, "%s", strings.Join(te.Errors, "; "))
	default:
		w.fail(path, n, "%v", err)
	}
}

// walkStruct checks a mapping against the YAML fields of struct type t:
// unknown keys (with a suggestion) and, recursively, the values' kinds.
func (w *walker) walkStruct(path string, n *yaml.Node, t reflect.Type) {
	if n.Kind != yaml.MappingNode && t == secretRefType {
		w.fail(path, n, "secrets are never written in the file: use env: VARIABLE, file: /path/to/secret, exec: [command, arguments...] or wincred: TARGET (Windows)")
		return
	}
	if n.Kind != yaml.MappingNode {
		w.fail(path, n, "must be a mapping with the keys %s, not a %s", strings.Join(keyNames(t), ", "), nodeKind(n))
		return
	}
	fields := yamlFields(t)
	w.noteMisspellings(path, n, fields)
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !w.plainKey(path, k) || w.repeated(path, k, seen) {
			continue
		}
		if k.Value == "<<" { // a merge key: its mapping(s) hold keys of this struct
			w.walkMerge(path, v, t)
			continue
		}
		ft, ok := fields[k.Value]
		if !ok {
			w.fail(join(path, k.Value), k, "unknown key%s; known keys here: %s", didYouMean(k.Value, fields), strings.Join(keyNames(t), ", "))
			continue
		}
		p := join(path, k.Value)
		w.lines[p] = k.Line
		w.walk(p, v, ft)
	}
}

// noteMisspellings records, for each unknown key of the mapping n at
// path, the known key it is likely a misspelling of: that key counts as
// reported ("required" for it would be the same mistake a second time).
func (w *walker) noteMisspellings(path string, n *yaml.Node, fields map[string]reflect.Type) {
	known := slices.Sorted(maps.Keys(fields))
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.Value != "<<" && fields[k.Value] == nil {
			if near := suggest.Nearest(k.Value, known); near != "" {
				w.meant = append(w.meant, join(path, near))
			}
		}
	}
}

// repeated reports (as a problem) whether key k was already given in the
// mapping at path, whose keys so far are in seen with their lines. YAML
// would keep only one of the two values; the usual cause is a list item
// written without its '-', which makes it part of the item above.
func (w *walker) repeated(path string, k *yaml.Node, seen map[string]int) bool {
	first, ok := seen[k.Value]
	if !ok {
		seen[k.Value] = k.Line
		return false
	}
	w.fail(join(path, k.Value), k, "given twice in the same block (first on line %d): if this starts another item of a list, begin it with '- '; otherwise remove one of the two", first)
	return true
}

// plainKey reports whether mapping key k is a scalar; a mapping or list
// used as a key is a problem (and stops the document from being decoded).
func (w *walker) plainKey(path string, k *yaml.Node) bool {
	if k.Kind == yaml.AliasNode && k.Alias != nil {
		k = k.Alias
	}
	if k.Kind == yaml.ScalarNode {
		return true
	}
	w.complexKey = true
	w.fail(path, k, "a key must be a plain name, not a %s", nodeKind(k))
	return false
}

// walkMerge walks the mapping (or list of mappings) of a << merge key as
// keys of the enclosing struct.
func (w *walker) walkMerge(path string, v *yaml.Node, t reflect.Type) {
	if v.Kind == yaml.SequenceNode {
		for _, m := range v.Content {
			w.walk(path, m, t)
		}
		return
	}
	w.walk(path, v, t)
}

// yamlFields maps each YAML key of struct type t (inline fields included) to
// its field type; the keys of a Source include those of the source kinds.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	if t == sourceType {
		for _, k := range all.Kinds() {
			out[k.Key] = reflect.TypeOf(k.New())
		}
	}
	for _, f := range fieldsOf(t) {
		out[f.key] = f.typ
	}
	return out
}

// field is one YAML key of a struct: its type, and the struct type that
// declares it (an inlined struct's keys are that struct's).
type field struct {
	key   string
	typ   reflect.Type
	owner reflect.Type
}

// fieldsOf returns the YAML keys of struct type t, those of its inline
// fields included, in their order.
func fieldsOf(t reflect.Type) []field {
	var out []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			out = append(out, fieldsOf(ft)...)
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out = append(out, field{key: name, typ: f.Type, owner: t})
	}
	return out
}

// keyNames returns the YAML keys of struct type t, sorted.
func keyNames(t reflect.Type) []string { return slices.Sorted(maps.Keys(yamlFields(t))) }

// didYouMean returns ` (did you mean "x"?)` for a key near a known one
// (suggest.Nearest).
func didYouMean(key string, fields map[string]reflect.Type) string {
	best := suggest.Nearest(key, slices.Sorted(maps.Keys(fields)))
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// kindName describes the values a Go type accepts, for error messages.
func kindName(t reflect.Type) string {
	switch {
	case t == durationType:
		return "a duration such as 30s, 5m or 1h"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return "a whole number"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return "a number"
	case t.Kind() == reflect.String:
		return "a string"
	}
	return "a " + t.Kind().String()
}

// nodeKind names a YAML node's kind for error messages.
func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "single value"
}

// join returns the path of key in the mapping at path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// index returns the path of item i of the list at path.
func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// has reports whether path is in the file.
func (w *walker) has(path string) bool {
	_, ok := w.lines[path]
	return ok
}

// lineOf returns the line of path, or of its nearest ancestor that is in
// the file (a missing required key is reported at its parent's line).
func (w *walker) lineOf(path string) int {
	for path != "" {
		if l, ok := w.lines[path]; ok {
			return l
		}
		cut := strings.LastIndexAny(path, ".[")
		if cut < 0 {
			break
		}
		path = path[:cut]
	}
	return 0
}
