package userrec

import (
	"strings"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/expr"
)

// evaluate runs the expressions over r, writing the computed fields into
// r.Values (the record's fields are numbered as the expressions' are:
// out.Set[f] is about field f). ok is false when an expression failed;
// the failure is reported.
func (b *Builder) evaluate(r *Record) (out expr.Outcome, ok bool) {
	if b.prog == nil {
		return expr.Outcome{Keep: true}, true
	}
	x := &b.xr
	for f := range expr.NumFields {
		x.Fields[f] = strings.TrimSpace(r.Values[f])
	}
	x.Attributes, x.DirectoryGroups = r.Attributes, r.Groups
	out, err := b.prog.Run(x)
	if err != nil {
		b.exprFailed(r, err)
		return out, false
	}
	for f, set := range out.Set {
		if set {
			r.Values[f] = x.Fields[f]
		}
	}
	return out, true
}

// exprFailed reports an expression's failure on r.
func (b *Builder) exprFailed(r *Record, err error) {
	reason := err.Error() + ": this record is skipped"
	b.report(r.Line, recordID(r), expr.KeyOf(err), reason)
	b.trace(r, nil, reason)
}

// recordID names a record in problems: its email, else its username.
func recordID(r *Record) string {
	if id := strings.TrimSpace(r.Values[Email]); id != "" {
		return id
	}
	return strings.TrimSpace(r.Values[Username])
}

// leaveOut notes a record the filter or the scope left out: its user,
// when the record names one validly, is left alone by the run.
func (b *Builder) leaveOut(r *Record, out *expr.Outcome) {
	if out.LeftOut() == "filter" {
		b.leftByFilter++
	}
	before := len(b.problems)
	c := recordCheck{b: b, r: r, computed: out.Set}
	u := c.identityOf()
	b.problems = b.problems[:before] // a rejected record's problems do not matter
	if !c.fail {
		b.filtered = append(b.filtered, u)
		for _, g := range r.Groups {
			b.targetsOf(g, c.line(Groups)) // the file has g (Result.FoundGroups)
		}
	}
	b.trace(r, out, "")
}

// trace notes how the record r of the explained user was built: out is
// nil when an expression failed (skipped says how).
func (b *Builder) trace(r *Record, out *expr.Outcome, skipped string) {
	if b.explain == "" || !source.Explains(b.explain, strings.TrimSpace(r.Values[Email]), strings.TrimSpace(r.Values[Username])) {
		return
	}
	t := diag.Trace{Source: b.source, File: b.file, Line: r.Line, Record: recordID(r),
		DirectoryGroups: append([]string(nil), r.Groups...), Skipped: skipped}
	if out != nil {
		out.Trace(&t, &b.xr)
	}
	b.traces = append(b.traces, t)
}

// problemsSince joins the reasons of the problems reported since the
// first n.
func (b *Builder) problemsSince(n int) string {
	var msgs []string
	for _, p := range b.problems[n:] {
		msgs = append(msgs, p.Field+": "+p.Reason)
	}
	return strings.Join(msgs, "; ")
}
