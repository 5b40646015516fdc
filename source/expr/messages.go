package expr

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/internal/util/suggest"
)

// wantHint says, by the type an expression must give, how to write one.
var wantHint = map[string]string{
	"bool":         `write a condition, e.g. user.country != "CN" or "staff" in directoryGroups`,
	"list(string)": `write a list of group names, e.g. user.attributes.department == "Design" ? ["Design"] : [] ([] for none)`,
	"string":       `write a text value, e.g. user.attributes.displayName.split(" ")[0]; string(...) converts a number`,
}

// explainIssues turns CEL's compile errors for text into one line, with
// what to write instead of an unknown variable or user field.
func explainIssues(text, issues string) string {
	msg := oneLine(issues)
	if strings.Contains(msg, "token recognition error at: '= '") {
		msg += "; compare with == (a single = is not an operator)"
	}
	if strings.Contains(msg, "no matching overload for '_?_:_'") {
		msg += `; both branches of c ? a : b must give the same type, e.g. ["Design"] : [] (not "Design" : [])`
	}
	if !strings.Contains(msg, "undeclared reference") {
		return msg
	}
	if bad := unknownFields(text); len(bad) > 0 {
		name := strings.TrimPrefix(bad[0], "user.")
		var near string
		if n := suggest.Nearest(name, append(fieldNames[:], attributeMaps...)); n != "" {
			near = " (did you mean user." + n + "?)"
		}
		return fmt.Sprintf("%s is not a user field%s: the fields are user.%s; an extra attribute is read as user.attributes.%s, all its values as user.attributeValues.%[4]s",
			bad[0], near, strings.Join(fieldNames[:], ", user."), name)
	}
	return msg + "; the variables are user.<field> (" + strings.Join(fieldNames[:], ", ") +
		"), user.attributes, user.attributeValues and directoryGroups, and the functions CEL's standard ones and its string extensions"
}

// userField is a user.<name> reference in an expression's text.
var userField = regexp.MustCompile(`\buser\.([A-Za-z_][A-Za-z0-9_]*)`)

// unknownFields returns the user.<name> references of text that name no
// field (user.attributes and user.attributeValues aside), in order.
func unknownFields(text string) []string {
	var bad []string
	for _, m := range userField.FindAllStringSubmatch(text, -1) {
		if !slices.Contains(attributeMaps, m[1]) && !slices.Contains(fieldNames[:], m[1]) && !slices.Contains(bad, m[0]) {
			bad = append(bad, m[0])
		}
	}
	return bad
}

// oneLine joins CEL's multi-line messages (which point at the column with
// a caret line) into one line.
func oneLine(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "|") {
			out = append(out, celPosition.ReplaceAllStringFunc(strings.ReplaceAll(t, " (in container '')", ""), position))
		}
	}
	return strings.Join(out, "; ")
}

// celPosition is the position CEL puts before each problem.
var celPosition = regexp.MustCompile(`^ERROR: <input>:(-?\d+):(\d+): `)

// position rewrites CEL's "ERROR: <input>:1:5: " as "at column 5: "
// (with the line when the expression has several), or drops it when CEL
// has no position.
func position(m string) string {
	sub := celPosition.FindStringSubmatch(m)
	switch {
	case sub[1] == "-1":
		return ""
	case sub[1] == "1":
		return "at column " + sub[2] + ": "
	}
	return "at line " + sub[1] + " column " + sub[2] + ": "
}

// missingKey adds, to CEL's "no such key" error, the attributes the
// record has: a misspelt one is then plain to see.
func missingKey(err error, r *Record) error {
	if !strings.HasPrefix(err.Error(), "no such key") {
		return err
	}
	if len(r.Attributes) == 0 {
		return fmt.Errorf("%w (the record has no attributes)", err)
	}
	names := slices.Sorted(maps.Keys(r.Attributes))
	if len(names) > 20 {
		names = append(names[:20], "…")
	}
	return fmt.Errorf("%w (the record has: %s)", err, strings.Join(names, ", "))
}
