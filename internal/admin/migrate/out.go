package migrate

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/orgsync/orgsync/secret"
)

// node is one line of the orgsync configuration being written: a key with
// a value, a key over a block of keys, or a list item, with the comment
// that says which incumbent setting it came from.
type node struct {
	key     string // "" for a list item
	value   string // the value as YAML, "" for a block
	kids    []*node
	seq     bool     // kids are list items
	comment string   // at the end of the line
	head    []string // comment lines above it
	// proposal is set on a line written as a comment: a translation
	// offered for review (a hook's expression), not in force.
	proposal bool
}

// child returns the key of the block n named key, adding it (last) when
// it is not there.
func (n *node) child(key string) *node {
	for _, k := range n.kids {
		if k.key == key {
			return k
		}
	}
	k := &node{key: key}
	n.kids = append(n.kids, k)
	return k
}

// at returns the node at a dotted path under n, adding the blocks on the
// way.
func (n *node) at(path string) *node {
	for _, key := range strings.Split(path, ".") {
		n = n.child(key)
	}
	return n
}

// item adds an item to the list n.
func (n *node) item() *node {
	n.seq = true
	k := &node{}
	n.kids = append(n.kids, k)
	return k
}

// set sets the value of the key at path under n, with its comment.
func (n *node) set(path string, v any, comment string) *node {
	k := n.at(path)
	k.value, k.comment = yamlValue(v), comment
	return k
}

// write renders n's keys (or items) at indent; proposal comments them
// out.
func (n *node) write(b *strings.Builder, indent int, proposal bool) {
	for _, k := range n.kids {
		if n.seq {
			k.writeItem(b, indent, proposal)
		} else {
			k.writeKey(b, indent, "", proposal)
		}
	}
}

// writeItem renders k as an item of a list: "- value", or "- key: value"
// with the item's other keys under it.
func (k *node) writeItem(b *strings.Builder, indent int, proposal bool) {
	proposal = proposal || k.proposal
	dash := strings.Repeat(" ", indent) + marker(proposal) + "- "
	if len(k.kids) == 0 || k.seq {
		b.WriteString(withComment(dash+k.value, k.comment))
		return
	}
	k.kids[0].writeKey(b, indent+2, dash, proposal)
	for _, c := range k.kids[1:] {
		c.writeKey(b, indent+2, "", proposal)
	}
}

// writeKey renders the key k at indent and what it holds; lead, when set,
// replaces the line's indentation (a list item's dash).
func (k *node) writeKey(b *strings.Builder, indent int, lead string, proposal bool) {
	proposal = proposal || k.proposal
	pad := strings.Repeat(" ", indent)
	for _, h := range k.head {
		fmt.Fprintf(b, "%s# %s\n", pad, h)
	}
	if lead == "" {
		lead = pad + marker(proposal)
	}
	line := lead + k.key + ":"
	if len(k.kids) == 0 && k.value != "" {
		line += " " + k.value
	}
	b.WriteString(withComment(line, k.comment))
	k.write(b, indent+2, proposal)
}

// marker starts a line written as a comment.
func marker(proposal bool) string {
	if proposal {
		return "# "
	}
	return ""
}

// withComment ends line with comment (when there is one) and a newline.
func withComment(line, comment string) string {
	if comment == "" {
		return line + "\n"
	}
	return line + "  # " + strings.ReplaceAll(comment, "\n", " ") + "\n"
}

// yamlValue renders a value of the configuration as YAML: a string
// (quoted when plain YAML would read it otherwise), a boolean, a number, a
// list of strings (in flow style) or a secret reference.
func yamlValue(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return quote(v)
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	case []string:
		parts := make([]string, len(v))
		for i, s := range v {
			parts[i] = quoteInFlow(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case secret.Ref:
		return secretYAML(v)
	case wincredRef:
		return "{wincred: " + quoteInFlow(v.target) + ", user: " + quoteInFlow(v.user) + "}"
	}
	panic(fmt.Sprintf("migrate: no YAML for %T", v))
}

// secretYAML renders a secret reference in flow style.
func secretYAML(r secret.Ref) string {
	switch {
	case r.Env != "":
		return "{env: " + quoteInFlow(r.Env) + "}"
	case r.File != "":
		return "{file: " + quoteInFlow(r.File) + "}"
	default:
		return "{exec: " + yamlValue(r.Exec) + "}"
	}
}

// plainSafe are strings YAML reads back as the same string when written
// without quotes.
var plainSafe = regexp.MustCompile(`^[A-Za-z0-9_/][A-Za-z0-9_./@=,()+: -]*$`)

// yamlKeywords are plain scalars YAML 1.1 or 1.2 reads as something else
// than a string.
var yamlKeywords = regexp.MustCompile(`(?i)^(true|false|yes|no|on|off|y|n|null|~|[-+]?[0-9][0-9_.:eE+-]*|[-+]?\.inf|\.nan)$`)

// quote returns s as a YAML scalar: plain when that reads back as s,
// single-quoted when it has no control characters (no escapes: regular
// expressions and CEL read as written), else double-quoted.
func quote(s string) string {
	if plainSafe.MatchString(s) && !yamlKeywords.MatchString(s) && !strings.HasSuffix(s, " ") &&
		!strings.Contains(s, " #") && !strings.Contains(s, ": ") {
		return s
	}
	for _, r := range s {
		if r < ' ' || r == 0x7f {
			return strconv.Quote(s)
		}
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// quoteInFlow is quote for an element of a flow list or mapping, where a
// comma or a brace ends a plain scalar.
func quoteInFlow(s string) string {
	q := quote(s)
	if !strings.HasPrefix(q, "'") && !strings.HasPrefix(q, `"`) && strings.ContainsAny(s, ",[]{}") {
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return q
}
