package expr

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
)

// attributeMaps are the variables that map an attribute's name to its
// value or values.
var attributeMaps = []string{"attributes", "attributeValues"}

// attributeRead is an attribute an expression reads, by the variable it
// reads it from (user.attributes or user.attributeValues).
type attributeRead struct{ variable, name string }

// String is the read as an expression writes it: "user.attributes.c".
func (r attributeRead) String() string { return r.variable + "." + r.name }

// attributeReads returns the attributes text reads outright
// (user.attributes.name or user.attributes["name"], and the same of
// user.attributeValues), leaving out those it also tests for
// (has(user.attributes.name), "name" in user.attributes,
// user.attributes.?name, of either map): a source that knows every
// attribute a record can have (a CSV file's header) can then tell a
// misspelt name at once.
func attributeReads(a *cel.Ast) []attributeRead {
	var read []attributeRead
	var tested []string
	ast.PreOrderVisit(a.NativeRep().Expr(), ast.NewExprVisitor(func(e ast.Expr) {
		switch e.Kind() {
		case ast.SelectKind:
			s := e.AsSelect()
			if v := attributeMap(s.Operand()); v != "" {
				if s.IsTestOnly() {
					tested = append(tested, s.FieldName())
				} else {
					read = append(read, attributeRead{v, s.FieldName()})
				}
			}
		case ast.CallKind:
			c := e.AsCall()
			if args := c.Args(); len(args) == 2 {
				switch {
				case c.FunctionName() == operators.Index && attributeMap(args[0]) != "":
					if name, ok := constString(args[1]); ok {
						read = append(read, attributeRead{attributeMap(args[0]), name})
					}
				case (c.FunctionName() == operators.OptSelect || c.FunctionName() == operators.OptIndex) && attributeMap(args[0]) != "":
					tested = appendConst(tested, args[1])
				case c.FunctionName() == operators.In && attributeMap(args[1]) != "":
					tested = appendConst(tested, args[0])
				}
			}
		}
	}))
	var out []attributeRead
	for _, r := range read {
		if !slices.Contains(tested, r.name) && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// readsValues reports whether text reads user.attributeValues.
func readsValues(a *cel.Ast) bool {
	found := false
	ast.PreOrderVisit(a.NativeRep().Expr(), ast.NewExprVisitor(func(e ast.Expr) {
		found = found || attributeMap(e) == "user.attributeValues"
	}))
	return found
}

// attributeMap returns the variable e is when it is user.attributes or
// user.attributeValues, else "".
func attributeMap(e ast.Expr) string {
	if e.Kind() == ast.IdentKind {
		if name, ok := strings.CutPrefix(e.AsIdent(), "user."); ok && slices.Contains(attributeMaps, name) {
			return e.AsIdent()
		}
		return ""
	}
	if e.Kind() != ast.SelectKind {
		return ""
	}
	s := e.AsSelect()
	if slices.Contains(attributeMaps, s.FieldName()) && s.Operand().Kind() == ast.IdentKind && s.Operand().AsIdent() == "user" {
		return "user." + s.FieldName()
	}
	return ""
}

// constString returns e's value when it is a string literal.
func constString(e ast.Expr) (string, bool) {
	if e.Kind() == ast.LiteralKind {
		if s, ok := e.AsLiteral().(types.String); ok {
			return string(s), true
		}
	}
	return "", false
}

// appendConst appends e's value when it is a string literal.
func appendConst(names []string, e ast.Expr) []string {
	if s, ok := constString(e); ok {
		names = append(names, s)
	}
	return names
}

// CheckAttributes checks, for a file source whose records all have the
// same attributes (have: a CSV file's columns of no field), that every
// attribute an expression reads outright is one of them. The error names
// the expression's key and the attribute, and lists those there are.
func (p *Program) CheckAttributes(have []string) error {
	if key, read := p.Unlisted(have); read != "" {
		return fmt.Errorf("%s reads %s, but the file has no such column (its columns of no user field: %s): fix the name or add the column",
			key, read, strings.Join(have, ", "))
	}
	return nil
}

// Unlisted returns the first attribute an expression reads outright (not
// behind has(), in or .?) that is not among have, as the expression reads
// it ("user.attributes.department", "user.attributeValues.projects"), and
// the key of that expression (filter, set.<field>, groups); read is ""
// when there is none.
func (p *Program) Unlisted(have []string) (key, read string) {
	if p == nil {
		return "", ""
	}
	named := []*program{p.filter}
	named = append(append(named, p.set[:]...), p.groups)
	for i, prg := range named {
		if prg == nil {
			continue
		}
		for _, r := range prg.reads {
			if !slices.Contains(have, r.name) {
				return keyOf(i), r.String()
			}
		}
	}
	return "", ""
}

// keyOf names the expression at i in CheckAttributes' order: the filter,
// each field's set, the groups.
func keyOf(i int) string {
	switch {
	case i == 0:
		return "filter"
	case i <= int(NumFields):
		return setKeys[i-1]
	}
	return "groups"
}
