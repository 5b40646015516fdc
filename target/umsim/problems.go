package umsim

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// problem is one thing wrong in a State, located by its field path, e.g.
// ["users", 3, "email"].
type problem struct {
	path []any
	msg  string
}

// problems collects every problem of a State so that all are reported at
// once.
type problems []problem

// add records msg at the field path (keys and indexes).
func (p *problems) add(msg string, path ...any) {
	*p = append(*p, problem{path: path, msg: msg})
}

// fieldPath writes a path of keys and indexes as text, e.g.
// users[3].groups[1].
func fieldPath(path []any) string {
	var b strings.Builder
	for _, el := range path {
		switch v := el.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", v)
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, v)
		}
	}
	return b.String()
}

// err joins the problems without line numbers.
func (p problems) err() error {
	errs := make([]error, len(p))
	for i, pr := range p {
		errs[i] = fmt.Errorf("umsim: state: %s: %s", fieldPath(pr.path), pr.msg)
	}
	return errors.Join(errs...)
}

// withLines joins the problems, each prefixed with file and line.
func (p problems) withLines(file string, root *yaml.Node) error {
	errs := make([]error, len(p))
	for i, pr := range p {
		errs[i] = fmt.Errorf("%s:%d: %s: %s", file, lineOf(root, pr.path), fieldPath(pr.path), pr.msg)
	}
	return errors.Join(errs...)
}

// lineOf returns the line of the deepest node of path that exists.
func lineOf(n *yaml.Node, path []any) int {
	line := n.Line
	for _, el := range path {
		n = child(n, el)
		if n == nil {
			break
		}
		line = n.Line
	}
	return line
}

// child returns the node under n at key or index el, or nil.
func child(n *yaml.Node, el any) *yaml.Node {
	switch n.Kind {
	case yaml.MappingNode:
		key := fmt.Sprint(el)
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i+1]
			}
		}
	case yaml.SequenceNode:
		idx, err := strconv.Atoi(fmt.Sprint(el))
		if err == nil && idx >= 0 && idx < len(n.Content) {
			return n.Content[idx]
		}
	}
	return nil
}
