package usertmpl

import (
	"strings"
	"sync"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/expr"
)

// Expressions are what a directory source's records go through before
// they become users: its compiled expressions (nil: none), the extra
// attributes they read (users.extraAttributes) and the user that
// `plan --explain` traces ("" for none).
type Expressions struct {
	Program         *expr.Program
	ExtraAttributes []string
	Explain         string
}

// builder runs the expressions of one read.
type builder struct {
	Expressions
	leftByFilter int
	xr           expr.Record // reused for each record Build builds
}

// Run makes Build run x over each record.
func (c *Collector) Run(x Expressions) { c.b = builder{Expressions: x} }

// Build builds the user of the record named id of attributes a
// (templates, then the expressions with the record's directory groups),
// gives it the target groups of the mapping rules and those of the groups
// expression, and collects it, leaves it out (filter, scope) or skips it
// with its problems.
func (c *Collector) Build(id string, a Attributes, targets, directoryGroups []string) {
	e := c.evaluate(&c.b.xr, a, directoryGroups)
	c.finish(id, &e, targets, directoryGroups)
}

// BuildAll builds n records as Build does, in order; record(i) gives
// record i's id, attributes, target groups and directory groups. Their
// templates and expressions run on up to workers goroutines at once (the
// attributes are only read, the expressions are safe to run at once);
// the users are collected in the records' order, as by Build.
func (c *Collector) BuildAll(n, workers int, record func(i int) (id string, a Attributes, targets, groups []string)) {
	type built struct {
		id              string
		targets, groups []string
		evaluated
	}
	bs := make([]built, n)
	var wg sync.WaitGroup
	k := max(1, min(workers, n))
	for w := range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var x expr.Record
			for i := w; i < n; i += k {
				b := &bs[i]
				var a Attributes
				b.id, a, b.targets, b.groups = record(i)
				b.evaluated = c.evaluate(&x, a, b.groups)
			}
		}()
	}
	wg.Wait()
	for i := range bs {
		b := &bs[i]
		c.finish(b.id, &b.evaluated, b.targets, b.groups)
	}
}

// evaluated is a record through its templates and expressions, not yet
// collected: its values (with those the expressions set), the outcome,
// or the error of an expression.
type evaluated struct {
	v   [expr.NumFields]string
	out expr.Outcome
	err error
}

// evaluate reads a record's values and runs the expressions over them
// with its directory groups; x is the expr.Record to reuse.
func (c *Collector) evaluate(x *expr.Record, a Attributes, groups []string) evaluated {
	e := evaluated{v: c.fields.Raw(a.Get), out: expr.Outcome{Keep: true}}
	if c.b.Program != nil {
		e.out, e.err = c.b.evaluate(x, a, &e.v, groups)
	}
	return e
}

// finish collects an evaluated record, leaves it out or skips it.
func (c *Collector) finish(id string, e *evaluated, targets, directoryGroups []string) {
	b, v, out := &c.b, e.v, e.out
	if e.err != nil {
		c.Skip(id, []Problem{{Field: expr.KeyOf(e.err), Reason: e.err.Error() + ": this record is skipped"}})
		c.trace(id, v, directoryGroups, nil, e.err.Error())
		return
	}
	u, defaulted, probs := c.fields.UserOf(v)
	computed(probs, out.Set, b.Program)
	if !out.Keep {
		if !out.OutOfScope {
			b.leftByFilter++
		}
		c.LeaveOut(u, len(probs) == 0)
		c.trace(id, v, directoryGroups, &out, "")
		return
	}
	u.Groups = source.UnionGroups(targets, out.Groups)
	probs = c.Collect(id, u, defaulted, probs)
	c.trace(id, v, directoryGroups, &out, joinProblems(probs))
}

// LeftByFilter counts the records the filter expression left out (not
// those out of the run's scope).
func (c *Collector) LeftByFilter() int { return c.b.leftByFilter }

// evaluate runs the expressions over the raw values v (which it updates
// with the computed ones), the extra attributes of a and directory groups.
func (b *builder) evaluate(x *expr.Record, a Attributes, v *[expr.NumFields]string, groups []string) (expr.Outcome, error) {
	x.Fields, x.DirectoryGroups = *v, groups
	if x.Attributes == nil {
		x.Attributes = make(map[string]string, len(b.ExtraAttributes))
	}
	for _, name := range b.ExtraAttributes {
		x.Attributes[name] = strings.TrimSpace(a.Get(name))
	}
	if b.Program.ReadsValues() {
		b.values(x, a)
	}
	out, err := b.Program.Run(x)
	if err == nil {
		*v = x.Fields
	}
	return out, err
}

// computed marks the problems of fields a set expression gave (set says
// which), naming the expression.
func computed(probs []Problem, set [expr.NumFields]bool, p *expr.Program) {
	for i := range probs {
		for f := range expr.Field(expr.NumFields) {
			if set[f] && probs[i].Field == f.Name() {
				probs[i].Field = "set." + f.Name()
				probs[i].Reason += " (computed by the expression " + p.Expression(probs[i].Field) + ")"
			}
		}
	}
}

// trace notes how the record of the explained user was built, v its
// values after the expressions (out is nil when an expression failed;
// skipped says why it was skipped, if it was).
func (c *Collector) trace(id string, v [expr.NumFields]string, groups []string, out *expr.Outcome, skipped string) {
	b := &c.b
	if b.Explain == "" || !source.Explains(b.Explain, v[expr.Email], v[expr.Username]) {
		return
	}
	t := diag.Trace{Source: c.source, File: c.where, Record: id, DirectoryGroups: groups, Skipped: skipped}
	if out != nil {
		out.Trace(&t, &expr.Record{Fields: v})
	}
	c.Trace(t)
}

func joinProblems(probs []Problem) string {
	msgs := make([]string, len(probs))
	for i, p := range probs {
		msgs[i] = p.Field + ": " + p.Reason
	}
	return strings.Join(msgs, "; ")
}
