package oktafake

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/orgsync/orgsync/source/internal/restapi"
)

// comparison is one clause of a search expression: attr eq "value" (or
// ne), strings compared case-insensitively.
var comparison = regexp.MustCompile(`^([\w.]+) (eq|ne) ("(?:[^"\\]|\\.)*")$`)

// parseSearch parses the expressions the fake knows: comparisons joined by
// "and" and "or" (and binding tighter), parenthesized groups.
func parseSearch(expr string) (func(object) bool, error) {
	expr = strings.TrimSpace(expr)
	if parts := splitTop(expr, " or "); len(parts) > 1 {
		return combine(parts, false)
	}
	if parts := splitTop(expr, " and "); len(parts) > 1 {
		return combine(parts, true)
	}
	if strings.HasPrefix(expr, "(") && strings.HasSuffix(expr, ")") {
		return parseSearch(expr[1 : len(expr)-1])
	}
	m := comparison.FindStringSubmatch(expr)
	if m == nil {
		return nil, fmt.Errorf("%q", expr)
	}
	want, err := strconv.Unquote(m[3])
	if err != nil {
		return nil, fmt.Errorf("%q: %v", expr, err)
	}
	attr, eq := m[1], m[2] == "eq"
	return func(o object) bool { return strings.EqualFold(restapi.Attr(o, attr), want) == eq }, nil
}

// combine parses each part and joins them with and (all) or or (any).
func combine(parts []string, all bool) (func(object) bool, error) {
	var fs []func(object) bool
	for _, p := range parts {
		f, err := parseSearch(p)
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
	}
	return func(o object) bool {
		for _, f := range fs {
			if f(o) != all {
				return !all
			}
		}
		return all
	}, nil
}

// splitTop splits expr at sep outside quotes and parentheses.
func splitTop(expr, sep string) []string {
	var parts []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(expr); i++ {
		switch c := expr[i]; {
		case c == '\\' && quoted:
			i++
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			depth--
		case depth == 0 && strings.HasPrefix(expr[i:], sep):
			parts = append(parts, expr[start:i])
			start = i + len(sep)
			i = start - 1
		}
	}
	return append(parts, expr[start:])
}
