// Package jsonpick reads chosen attributes of the records of a JSON
// listing page in one pass over its text, without building each record
// as a map: a cloud source's read of 100,000 users spends most of its own
// time decoding them. An attribute is a path of member names
// ("name.givenName", "profile.email"); a list on the way gives its
// element marked primary (its member primary is true), else its first
// when that is an object, and a list at the end its first value; a
// number or boolean gives its JSON text, anything missing or null "".
// A path the Extractor is told is multi-valued gives every value of a
// list at its end (of scalars, or of {"value": ...} objects) joined by
// commas (Google's multi-valued custom schema fields).
package jsonpick

import (
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Extractor reads the attributes of its paths from the records of a
// page. Make it with New; it is safe for use by several readers at once.
type Extractor struct {
	root  *node
	index map[string]int // slot of each path
	n     int
}

// node is one step of the paths: the slot of the path that ends here
// (-1: none), the steps below, and every slot below it; multi: the path
// ending here is multi-valued.
type node struct {
	slot     int
	children map[string]*node
	below    []int
	multi    bool
}

// New returns the extractor of paths; multi (nil: none) says which are
// multi-valued.
func New(paths []string, multi func(path string) bool) *Extractor {
	x := &Extractor{root: &node{slot: -1}, index: map[string]int{}}
	for _, p := range paths {
		if _, dup := x.index[p]; dup {
			continue
		}
		x.index[p] = x.n
		n := x.root
		for _, step := range strings.Split(p, ".") {
			n.below = append(n.below, x.n)
			if n.children == nil {
				n.children = map[string]*node{}
			}
			if n.children[step] == nil {
				n.children[step] = &node{slot: -1}
			}
			n = n.children[step]
		}
		n.slot = x.n
		n.multi = multi != nil && multi(p)
		x.n++
	}
	return x
}

// Records reads a page and calls fn with each record's attributes (get
// returns "" for a path it was not made with): the records are the array
// of the page's member named member, or the page itself when member is
// "".
func (x *Extractor) Records(r io.Reader, member string, fn func(get func(string) string)) error {
	d := jsontext.NewDecoder(r)
	if member == "" {
		return x.records(d, fn)
	}
	return members(d, func(name string) error {
		if name != member || d.PeekKind() != '[' && d.PeekKind() != 'n' {
			return d.SkipValue()
		}
		return x.records(d, fn)
	})
}

// records reads an array of records (null: none).
func (x *Extractor) records(d *jsontext.Decoder, fn func(get func(string) string)) error {
	if d.PeekKind() == 'n' {
		_, err := d.ReadToken()
		return err
	}
	if t, err := d.ReadToken(); err != nil || t.Kind() != '[' {
		return errors.Join(errors.New("not a JSON array"), err)
	}
	for d.PeekKind() == '{' {
		vals := make([]string, x.n)
		if err := x.object(d, x.root, vals); err != nil {
			return err
		}
		fn(func(a string) string {
			if i, ok := x.index[a]; ok {
				return vals[i]
			}
			return ""
		})
	}
	_, err := d.ReadToken() // "]", or the error of anything else
	return err
}

// members reads an object, calling fn with each member's name; fn reads
// the value.
func members(d *jsontext.Decoder, fn func(name string) error) error {
	if t, err := d.ReadToken(); err != nil || t.Kind() != '{' {
		return errors.Join(errors.New("not a JSON object"), err)
	}
	for {
		t, err := d.ReadToken()
		if err != nil || t.Kind() == '}' {
			return err
		}
		if err := fn(t.String()); err != nil {
			return err
		}
	}
}

// value reads the next value into vals, as n says.
func (x *Extractor) value(d *jsontext.Decoder, n *node, vals []string) error {
	switch d.PeekKind() {
	case '{':
		return x.object(d, n, vals)
	case '[':
		return x.array(d, n, vals)
	}
	t, err := d.ReadToken()
	if err == nil && n.slot >= 0 {
		vals[n.slot] = text(t)
	}
	return err
}

// object reads an object into vals, as n says.
func (x *Extractor) object(d *jsontext.Decoder, n *node, vals []string) error {
	_, err := x.element(d, n, vals)
	return err
}

// element reads an object into vals, as n says, and reports whether it
// is marked primary (its member primary is true).
func (x *Extractor) element(d *jsontext.Decoder, n *node, vals []string) (primary bool, err error) {
	err = members(d, func(name string) error {
		if name == "primary" && d.PeekKind() == 't' {
			primary = true
		}
		child := n.children[name]
		if child == nil {
			return d.SkipValue()
		}
		return x.value(d, child, vals)
	})
	return primary, err
}

// array reads a list: its first value for n's own slot (when a scalar),
// and for the slots below n its element marked primary, else its first
// element when that is an object.
func (x *Extractor) array(d *jsontext.Decoder, n *node, vals []string) error {
	if n.multi && n.slot >= 0 {
		list, err := multiValues(d)
		vals[n.slot] = strings.Join(list, ",")
		return err
	}
	if _, err := d.ReadToken(); err != nil {
		return err
	}
	chosen := false // the primary element was read
	for i := 0; ; i++ {
		switch d.PeekKind() {
		case ']':
			_, err := d.ReadToken()
			return err
		case '{':
			scratch := make([]string, len(vals))
			primary, err := x.element(d, n, scratch)
			if err != nil {
				return err
			}
			if !chosen && (i == 0 || primary) {
				for _, s := range n.below {
					vals[s] = scratch[s]
				}
				chosen = primary
			}
		case '[':
			if err := d.SkipValue(); err != nil {
				return err
			}
		default:
			t, err := d.ReadToken()
			if err != nil {
				return err
			}
			if i == 0 && n.slot >= 0 {
				vals[n.slot] = text(t)
			}
		}
	}
}

// multiValues reads a multi-valued custom field: its elements' values
// (each an object's "value" member, or a scalar), in order.
func multiValues(d *jsontext.Decoder) ([]string, error) {
	if _, err := d.ReadToken(); err != nil {
		return nil, err
	}
	var out []string
	for {
		switch d.PeekKind() {
		case ']':
			_, err := d.ReadToken()
			return out, err
		case '{':
			err := members(d, func(name string) error {
				if name != "value" || d.PeekKind() == '{' || d.PeekKind() == '[' {
					return d.SkipValue()
				}
				t, err := d.ReadToken()
				if v := text(t); err == nil && v != "" {
					out = append(out, v)
				}
				return err
			})
			if err != nil {
				return nil, err
			}
		case '[':
			if err := d.SkipValue(); err != nil {
				return nil, err
			}
		default:
			t, err := d.ReadToken()
			if err != nil {
				return nil, err
			}
			if v := text(t); v != "" {
				out = append(out, v)
			}
		}
	}
}

// text is a scalar as restapi.Attr gives it: a string itself, a number
// or boolean its JSON text (numbers as float64), null "".
func text(t jsontext.Token) string {
	switch t.Kind() {
	case '"':
		return t.String()
	case 't':
		return "true"
	case 'f':
		return "false"
	case '0':
		f, err := t.Float()
		if err != nil {
			return ""
		}
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return ""
}
