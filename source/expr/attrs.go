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

// attributeReads returns the attributes text reads outright
// (user.attributes.name or user.attributes["name"]), leaving out those it
// also tests for (has(user.attributes.name), "name" in user.attributes,
// user.attributes.?name): a source that knows every attribute a record
// can have (a CSV file's header) can then tell a misspelt name at once.
func attributeReads(a *cel.Ast) []string {
	var read, tested []string
	ast.PreOrderVisit(a.NativeRep().Expr(), ast.NewExprVisitor(func(e ast.Expr) {
		switch e.Kind() {
		case ast.SelectKind:
			s := e.AsSelect()
			if isAttributes(s.Operand()) {
				if s.IsTestOnly() {
					tested = append(tested, s.FieldName())
				} else {
					read = append(read, s.FieldName())
				}
			}
		case ast.CallKind:
			c := e.AsCall()
			if args := c.Args(); len(args) == 2 {
				switch {
				case c.FunctionName() == operators.Index && isAttributes(args[0]):
					read = appendConst(read, args[1])
				case (c.FunctionName() == operators.OptSelect || c.FunctionName() == operators.OptIndex) && isAttributes(args[0]):
					tested = appendConst(tested, args[1])
				case c.FunctionName() == operators.In && isAttributes(args[1]):
					tested = appendConst(tested, args[0])
				}
			}
		}
	}))
	var out []string
	for _, n := range read {
		if !slices.Contains(tested, n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// isAttributes reports whether e is user.attributes.
func isAttributes(e ast.Expr) bool {
	if e.Kind() == ast.IdentKind {
		return e.AsIdent() == "user.attributes"
	}
	if e.Kind() != ast.SelectKind {
		return false
	}
	s := e.AsSelect()
	return s.FieldName() == "attributes" && s.Operand().Kind() == ast.IdentKind && s.Operand().AsIdent() == "user"
}

// appendConst appends e's value when it is a string literal.
func appendConst(names []string, e ast.Expr) []string {
	if e.Kind() == ast.LiteralKind {
		if s, ok := e.AsLiteral().(types.String); ok {
			names = append(names, string(s))
		}
	}
	return names
}

// CheckAttributes checks, for a file source whose records all have the
// same attributes (have: a CSV file's columns of no field), that every
// attribute an expression reads outright is one of them. The error names
// the expression's key and the attribute, and lists those there are.
func (p *Program) CheckAttributes(have []string) error {
	if key, name := p.Unlisted(have); name != "" {
		return fmt.Errorf("%s reads user.attributes.%s, but the file has no such column (its columns of no user field: %s): fix the name or add the column",
			key, name, strings.Join(have, ", "))
	}
	return nil
}

// Unlisted returns the first attribute an expression reads outright (not
// behind has(), in or .?) that is not among have, and the key of that
// expression (filter, set.<field>, groups); name is "" when there is none.
func (p *Program) Unlisted(have []string) (key, name string) {
	if p == nil {
		return "", ""
	}
	named := []*program{p.filter}
	named = append(append(named, p.set[:]...), p.groups)
	for i, prg := range named {
		if prg == nil {
			continue
		}
		for _, name := range prg.reads {
			if !slices.Contains(have, name) {
				return keyOf(i), name
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
