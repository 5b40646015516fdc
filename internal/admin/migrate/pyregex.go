package migrate

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// pythonOnly are constructs of Python's regular expressions that Go's
// (RE2) has no equivalent for, with their names.
var pythonOnly = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`\(\?[=!]`), "a lookahead"},
	{regexp.MustCompile(`\(\?<[=!]`), "a lookbehind"},
	{regexp.MustCompile(`\(\?P=`), "a named backreference"},
	{regexp.MustCompile(`(^|[^\\])(\\\\)*\\[1-9]`), "a backreference"},
	{regexp.MustCompile(`\(\?\(`), "a conditional group"},
	{regexp.MustCompile(`\(\?>`), "an atomic group"},
	{regexp.MustCompile(`\(\?[a-zA-Z]*x`), "the verbose flag (?x)"},
}

// pythonRegexp returns a Python regular expression (as the incumbent
// writes them) in Go's syntax, or why it has none: \Z is \z, {,n} is
// {0,n}; lookarounds and backreferences do not exist in Go.
func pythonRegexp(py string) (string, error) {
	for _, p := range pythonOnly {
		if p.re.MatchString(py) {
			return "", fmt.Errorf("the regular expression %q uses %s, which orgsync's regular expressions (Go's RE2) do not have: rewrite it without", py, p.what)
		}
	}
	re := strings.ReplaceAll(py, `\Z`, `\z`)
	re = strings.ReplaceAll(re, "{,", "{0,")
	if _, err := regexp.Compile(re); err != nil {
		return "", fmt.Errorf("the regular expression %q is not valid in orgsync's syntax (Go's RE2): %v", py, err)
	}
	return re, nil
}

// pythonRepl returns a Python replacement string (\1, \g<1>, \g<name>) as
// a mapping target's substitution ($1 is ${1}); a literal $ is $$.
func pythonRepl(py string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(py); i++ {
		c := py[i]
		switch {
		case c == '$':
			b.WriteString("$$")
		case c != '\\' || i+1 == len(py):
			b.WriteByte(c)
		case py[i+1] >= '0' && py[i+1] <= '9':
			j := i + 1
			for j < len(py) && j < i+3 && py[j] >= '0' && py[j] <= '9' {
				j++
			}
			b.WriteString("${" + py[i+1:j] + "}")
			i = j - 1
		case py[i+1] == 'g' && i+2 < len(py) && py[i+2] == '<':
			end := strings.IndexByte(py[i:], '>')
			if end < 0 {
				return "", fmt.Errorf("the replacement %q has an unterminated \\g<", py)
			}
			b.WriteString("${" + py[i+3:i+end] + "}")
			i += end
		case py[i+1] == '\\':
			b.WriteByte('\\')
			i++
		default:
			return "", fmt.Errorf("the replacement %q uses the escape \\%c, which a mapping target cannot hold", py, py[i+1])
		}
	}
	return b.String(), nil
}

// wholeName matches a Go regular expression that always consumes the rest
// of the text it matches from (it ends in .*, .+ or an end anchor).
var wholeName = regexp.MustCompile(`(\.\*|\.\+|\$|\\z)\)*$`)

// additionalRule translates an additional_groups rule (a Python source
// expression and target replacement) into an orgsync pattern rule. The
// incumbent tries the expression at the start of each group name, case
// sensitively, and replaces what it matches, keeping the rest of the name;
// orgsync's patterns match the whole name and ignore letter case, so the
// pattern is made case-sensitive and, when the expression may leave a
// rest, captures it for the target.
func additionalRule(source, target string) (pattern, tgt, note string, err error) {
	re, err := pythonRegexp(source)
	if err != nil {
		return "", "", "", err
	}
	if tgt, err = pythonRepl(target); err != nil {
		return "", "", "", err
	}
	pattern = "(?-i:" + re + ")"
	if !wholeName.MatchString(re) {
		pattern += "(?P<rest>.*)"
		tgt += "${rest}"
		note = "the incumbent renames only the start of a group name its expression matches and keeps the rest: the rule keeps the rest as ${rest} (a second match in the rest, which the incumbent would also rename, is not)"
	}
	return pattern, tgt, note, nil
}

// celString is s as a CEL string literal.
func celString(s string) string { return strconv.Quote(s) }
