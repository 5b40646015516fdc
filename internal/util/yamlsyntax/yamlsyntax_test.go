package yamlsyntax

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The parser's error is moved to the line that breaks the document and
// says why there, with the line shown; a mistake the scanner does not
// know keeps the parser's message on the parser's line.
func TestExplain(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		doc  string
		line int
		want string
	}{
		{"users:\n  - a: 1\n    b: 2\n   - a: 3\n", 4, "indented 3 spaces"},
		{"users:\n  - a: 1\n\tb: 2\n", 3, "a tab in the indentation"},
		{"a: 1\nb: \"unclosed\nc: 2\n", 2, "found unexpected end of stream"},
	} {
		var n yaml.Node
		err := yaml.Unmarshal([]byte(c.doc), &n)
		if err == nil {
			t.Fatalf("%q parsed", c.doc)
		}
		line, msg := Explain([]byte(c.doc), err)
		shown := strings.Split(c.doc, "\n")[c.line-1]
		if line != c.line || !strings.Contains(msg, c.want) || !strings.Contains(msg, shown) || strings.HasPrefix(msg, "yaml:") {
			t.Errorf("%q: line %d, %q\nwant line %d saying %q and showing %q", c.doc, line, msg, c.line, c.want, shown)
		}
	}
}
