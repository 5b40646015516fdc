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
//
// Every path also gives all its values (Record.Values) when a list is on
// its way (each element's value, not only the primary one's) or at its
// end (each scalar, or each value of a multi-valued path), in the page's
// order, empty ones left out.
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

// Record is the attributes of one record of a page.
type Record struct {
	x     *Extractor
	vals  []string   // the value of each path
	lists [][]string // every value of each path with a list on its way or at its end; nil until one has one
}

// Get returns the value of path: "" for one missing, or that the
// Extractor was not made with.
func (r *Record) Get(path string) string {
	if i, ok := r.x.index[path]; ok {
		return r.vals[i]
	}
	return ""
}

// Values returns every value of path, in the page's order, when a list
// is on its way or at its end; nil when there is none, and when path
// has at most one value, Get's.
func (r *Record) Values(path string) []string {
	if i, ok := r.x.index[path]; ok && r.lists != nil {
		return r.lists[i]
	}
	return nil
}

// add notes v, read inside a list, as one of the values of slot.
func (r *Record) add(slot int, v ...string) {
	if len(v) == 0 || len(v) == 1 && v[0] == "" {
		return
	}
	if r.lists == nil {
		r.lists = make([][]string, r.x.n)
	}
	r.lists[slot] = append(r.lists[slot], v...)
}

// Records reads a page and calls fn with each record's attributes: the
// records are the array of the page's member named member, or the page
// itself when member is "". fn may keep the record.
func (x *Extractor) Records(r io.Reader, member string, fn func(*Record)) error {
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
func (x *Extractor) records(d *jsontext.Decoder, fn func(*Record)) error {
	if d.PeekKind() == 'n' {
		_, err := d.ReadToken()
		return err
	}
	if t, err := d.ReadToken(); err != nil || t.Kind() != '[' {
		return errors.Join(errors.New("not a JSON array"), err)
	}
	for d.PeekKind() == '{' {
		rec := &Record{x: x, vals: make([]string, x.n)}
		if _, err := x.element(d, x.root, rec.vals, rec, false); err != nil {
			return err
		}
		fn(rec)
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

// value reads the next value into vals, as n says, and into rec's lists
// when it is inside a list (inList).
func (x *Extractor) value(d *jsontext.Decoder, n *node, vals []string, rec *Record, inList bool) error {
	switch d.PeekKind() {
	case '{':
		_, err := x.element(d, n, vals, rec, inList)
		return err
	case '[':
		return x.array(d, n, vals, rec)
	}
	t, err := d.ReadToken()
	if err == nil && n.slot >= 0 {
		vals[n.slot] = text(t)
		if inList {
			rec.add(n.slot, vals[n.slot])
		}
	}
	return err
}

// element reads an object into vals (and rec's lists, inList), as n
// says, and reports whether it is marked primary (its member primary is
// true).
func (x *Extractor) element(d *jsontext.Decoder, n *node, vals []string, rec *Record, inList bool) (primary bool, err error) {
	err = members(d, func(name string) error {
		if name == "primary" && d.PeekKind() == 't' {
			primary = true
		}
		child := n.children[name]
		if child == nil {
			return d.SkipValue()
		}
		return x.value(d, child, vals, rec, inList)
	})
	return primary, err
}

// array reads a list: its first value for n's own slot (when a scalar),
// and for the slots below n its element marked primary, else its first
// element when that is an object; every value goes to rec's lists.
func (x *Extractor) array(d *jsontext.Decoder, n *node, vals []string, rec *Record) error {
	if n.multi && n.slot >= 0 {
		list, err := multiValues(d)
		vals[n.slot] = strings.Join(list, ",")
		rec.add(n.slot, list...)
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
			primary, err := x.element(d, n, scratch, rec, true)
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
			if n.slot >= 0 {
				v := text(t)
				if i == 0 {
					vals[n.slot] = v
				}
				rec.add(n.slot, v)
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
