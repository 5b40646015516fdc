package entrafake

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/orgsync/orgsync/source/internal/restapi"
)

// The OData $filter clauses the fake knows: prop eq 'text', prop eq
// true|false, startswith(prop,'text'); strings compare case-insensitively
// as Graph's do.
var (
	eqClause         = regexp.MustCompile(`^(\w+) eq (?:'((?:[^']|'')*)'|(true|false))$`)
	startswithClause = regexp.MustCompile(`^startswith\((\w+),\s*'((?:[^']|'')*)'\)$`)
)

// clause tests one object.
type clause func(o object) bool

// filter returns the objects that match every clause of f (joined by
// "and").
func filter(objs []object, f string) ([]object, error) {
	var clauses []clause
	for _, c := range splitAnd(f) {
		cl, err := parseClause(strings.TrimSpace(c))
		if err != nil {
			return nil, err
		}
		clauses = append(clauses, cl)
	}
	var out []object
next:
	for _, o := range objs {
		for _, c := range clauses {
			if !c(o) {
				continue next
			}
		}
		out = append(out, o)
	}
	return out, nil
}

// splitAnd splits f at " and " outside quoted strings.
func splitAnd(f string) []string {
	var parts []string
	quoted, start := false, 0
	for i := 0; i < len(f); i++ {
		switch {
		case f[i] == '\'':
			quoted = !quoted
		case !quoted && strings.HasPrefix(f[i:], " and "):
			parts = append(parts, f[start:i])
			start = i + len(" and ")
			i = start - 1
		}
	}
	return append(parts, f[start:])
}

func parseClause(c string) (clause, error) {
	if m := eqClause.FindStringSubmatch(c); m != nil {
		prop, want := m[1], strings.ReplaceAll(m[2], "''", "'")
		if m[3] != "" {
			want = m[3]
		}
		return func(o object) bool { return strings.EqualFold(restapi.Attr(o, prop), want) }, nil
	}
	if m := startswithClause.FindStringSubmatch(c); m != nil {
		prop, prefix := m[1], strings.ToLower(strings.ReplaceAll(m[2], "''", "'"))
		return func(o object) bool { return strings.HasPrefix(strings.ToLower(restapi.Attr(o, prop)), prefix) }, nil
	}
	return nil, fmt.Errorf("%q", c)
}
