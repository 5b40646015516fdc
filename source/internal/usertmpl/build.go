package usertmpl

import (
	"strings"

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
	xr           expr.Record // reused for each record
}

// Run makes Build run x over each record.
func (c *Collector) Run(x Expressions) { c.b = builder{Expressions: x} }

// Build builds the user of the record named id whose attributes get
// returns (templates, then the expressions with the record's directory
// groups), gives it the target groups of the mapping rules and those of
// the groups expression, and collects it, leaves it out (filter, scope) or
// skips it with its problems.
func (c *Collector) Build(id string, get func(attr string) string, targets, directoryGroups []string) {
	b := &c.b
	v := c.fields.Raw(get)
	out := expr.Outcome{Keep: true}
	if b.Program != nil {
		var err error
		if out, err = b.evaluate(get, &v, directoryGroups); err != nil {
			c.Skip(id, []Problem{{Field: expr.KeyOf(err), Reason: err.Error() + ": this record is skipped"}})
			c.trace(id, v, directoryGroups, nil, err.Error())
			return
		}
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
// with the computed ones), the extra attributes and directory groups.
func (b *builder) evaluate(get func(string) string, v *[expr.NumFields]string, groups []string) (expr.Outcome, error) {
	x := &b.xr
	x.Fields, x.DirectoryGroups = *v, groups
	if x.Attributes == nil {
		x.Attributes = make(map[string]string, len(b.ExtraAttributes))
	}
	for _, a := range b.ExtraAttributes {
		x.Attributes[a] = strings.TrimSpace(get(a))
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

// trace notes how the record of the explained user was built (out is nil
// when an expression failed; skipped says why it was skipped, if it was).
func (c *Collector) trace(id string, v [expr.NumFields]string, groups []string, out *expr.Outcome, skipped string) {
	b := &c.b
	if b.Explain == "" || !source.Explains(b.Explain, v[expr.Email], v[expr.Username]) {
		return
	}
	t := diag.Trace{Source: c.source, File: c.where, Record: id, DirectoryGroups: groups, Skipped: skipped}
	if out != nil {
		out.Trace(&t, &b.xr)
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
