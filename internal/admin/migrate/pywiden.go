package migrate

import (
	"fmt"
	"strings"
)

// This file proposes, for a Python regular expression Go's (RE2) cannot
// hold, what keeps its effect where migrate can: a wider expression for an
// exclusion (it protects every user the incumbent's protects, and maybe
// more), or an exact expression for a selection whose lookaheads all
// stand at its start.

// widenRegexp returns, in Go's syntax, an expression that matches every
// text the Python expression py matches, and perhaps more: its
// lookarounds are left out (an assertion only narrows a match), a
// backreference matches anything, an atomic group is a plain group. ok is
// false when py holds something else Go cannot read (a conditional group,
// the verbose flag) or the result does not compile.
func widenRegexp(py string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(py); {
		switch {
		case hasPrefixAt(py, i, `(?=`, `(?!`, `(?<=`, `(?<!`):
			end := groupEnd(py, i)
			if end < 0 {
				return "", false
			}
			i = end + 1
		case hasPrefixAt(py, i, `(?P=`):
			end := strings.IndexByte(py[i:], ')')
			if end < 0 {
				return "", false
			}
			b.WriteString(`(?s:.*)`)
			i += end + 1
		case hasPrefixAt(py, i, `(?>`):
			b.WriteString(`(?:`)
			i += 3
		case py[i] == '\\' && i+1 < len(py) && py[i+1] >= '1' && py[i+1] <= '9':
			b.WriteString(`(?s:.*)`)
			i += 2
			for i < len(py) && py[i] >= '0' && py[i] <= '9' {
				i++
			}
		case py[i] == '\\' && i+1 < len(py):
			b.WriteString(py[i : i+2])
			i += 2
		case py[i] == '[':
			end := classEnd(py, i)
			if end < 0 {
				return "", false
			}
			b.WriteString(py[i : end+1])
			i = end + 1
		default:
			b.WriteByte(py[i])
			i++
		}
	}
	re, err := pythonRegexp(b.String())
	if err != nil {
		return "", false
	}
	return re, true
}

// hasPrefixAt reports whether s has one of the prefixes at i.
func hasPrefixAt(s string, i int, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s[i:], p) {
			return true
		}
	}
	return false
}

// groupEnd returns the index of the parenthesis that closes the group
// opened at s[open], or -1: escapes and character classes are skipped.
func groupEnd(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			if i = classEnd(s, i); i < 0 {
				return -1
			}
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// classEnd returns the index of the bracket that closes the character
// class opened at s[open], or -1 (a ] first in the class, or after ^, is
// a literal, as in Python).
func classEnd(s string, open int) int {
	i := open + 1
	if i < len(s) && s[i] == '^' {
		i++
	}
	if i < len(s) && s[i] == ']' {
		i++
	}
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case ']':
			return i
		}
	}
	return -1
}

// leadingLookaheads splits a Python expression that starts with
// lookaheads, and has no other construct Go lacks, into the lookaheads
// (each a prefix that must match, or must not when negative) and the
// rest, each in Go's syntax: matched at the start of a whole-text match,
// they hold exactly what the expression does. ok is false for any other
// expression.
func leadingLookaheads(py string) (must, mustNot []string, rest string, ok bool) {
	for strings.HasPrefix(py, "(?=") || strings.HasPrefix(py, "(?!") {
		end := groupEnd(py, 0)
		if end < 0 {
			return nil, nil, "", false
		}
		inner, err := pythonRegexp(py[3:end])
		if err != nil {
			return nil, nil, "", false
		}
		if py[2] == '=' {
			must = append(must, inner)
		} else {
			mustNot = append(mustNot, inner)
		}
		py = py[end+1:]
	}
	if len(must)+len(mustNot) == 0 {
		return nil, nil, "", false
	}
	rest, err := pythonRegexp(py)
	if err != nil {
		return nil, nil, "", false
	}
	return must, mustNot, rest, true
}

// selectionCEL is the CEL test, over the text expression name, of a
// Python selection expression matched whole and ignoring letter case (as
// the incumbent's --user-filter): exact for an expression Go reads, and
// for one whose lookaheads all stand at its start. ok is false otherwise.
func selectionCEL(name, py string) (string, bool) {
	if re, err := pythonRegexp(py); err == nil {
		return fmt.Sprintf("%s.matches(%s)", name, celString("(?i)^(?:"+re+")$")), true
	}
	must, mustNot, rest, ok := leadingLookaheads(py)
	if !ok {
		return "", false
	}
	parts := []string{fmt.Sprintf("%s.matches(%s)", name, celString("(?i)^(?:"+rest+")$"))}
	for _, m := range must {
		parts = append(parts, fmt.Sprintf("%s.matches(%s)", name, celString("(?i)^(?:"+m+")")))
	}
	for _, m := range mustNot {
		parts = append(parts, fmt.Sprintf("!%s.matches(%s)", name, celString("(?i)^(?:"+m+")")))
	}
	return strings.Join(parts, " && "), true
}
