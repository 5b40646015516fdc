package entrafake

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/orgsync/orgsync/source/internal/restapi"
)

// The OData $filter clauses the fake knows: prop eq (or ne) 'text', prop
// eq (or ne) true|false, startswith(prop,'text') and endswith(prop,'text');
// strings compare case-insensitively as Graph's do. ne and endswith are
// advanced queries: Graph refuses them without $count=true and
// ConsistencyLevel: eventual.
var (
	eqClause         = regexp.MustCompile(`^(\w+) (eq|ne) (?:'((?:[^']|'')*)'|(true|false))$`)
	startswithClause = regexp.MustCompile(`^(startswith|endswith)\((\w+),\s*'((?:[^']|'')*)'\)$`)
)

// clause tests one object.
type clause func(o object) bool

// filter returns the objects that match every clause of f (joined by
// "and"); advanced says whether the request has the advanced query
// parameters.
func filter(objs []object, f string, advanced bool) ([]object, error) {
	var clauses []clause
	for _, c := range splitAnd(f) {
		cl, needsAdvanced, err := parseClause(strings.TrimSpace(c))
		if err != nil {
			return nil, err
		}
		if needsAdvanced && !advanced {
			return nil, fmt.Errorf("%q is an advanced query: it needs $count=true and the ConsistencyLevel: eventual header", c)
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

// parseClause parses one clause, and says whether it is an advanced
// query.
func parseClause(c string) (match clause, advanced bool, err error) {
	if m := eqClause.FindStringSubmatch(c); m != nil {
		prop, eq, want := m[1], m[2] == "eq", strings.ReplaceAll(m[3], "''", "'")
		if m[4] != "" {
			want = m[4]
		}
		return func(o object) bool { return strings.EqualFold(restapi.Attr(o, prop), want) == eq }, !eq, nil
	}
	if m := startswithClause.FindStringSubmatch(c); m != nil {
		prop, text := m[2], strings.ToLower(strings.ReplaceAll(m[3], "''", "'"))
		has := strings.HasPrefix
		if m[1] == "endswith" {
			has = strings.HasSuffix
		}
		return func(o object) bool { return has(strings.ToLower(restapi.Attr(o, prop)), text) }, m[1] == "endswith", nil
	}
	return nil, false, fmt.Errorf("%q", c)
}
