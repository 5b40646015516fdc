// Package yamlsyntax says where a YAML document a person wrote is broken
// and how, for the configuration file and the YAML source alike: the
// parser often names the line where the enclosing block starts, not the
// line that breaks it, in its own words; this package finds the line
// (a tab, a key indented too far or too little, a list item without "-")
// and shows it.
package yamlsyntax

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Explain turns the YAML parser's error for data into the line that is
// likely wrong and a message saying what is likely wrong there, with the
// line shown; when no line looks wrong, the parser's own message on its
// line (0 when it names none).
func Explain(data []byte, err error) (line int, message string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := parserLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = strings.TrimPrefix(msg, m[0])
	}
	lines := strings.Split(string(data), "\n")
	if n, what := FindIndentMistake(lines); n > 0 {
		return n, fmt.Sprintf("%s\n      %d | %s\n    (the YAML parser says: %s)", what, n, lines[n-1], msg)
	}
	if line > 0 && line <= len(lines) {
		return line, fmt.Sprintf("%s\n      %d | %s", msg, line, lines[line-1])
	}
	return line, msg
}

// parserLine is the "line N: " of the parser's messages.
var parserLine = regexp.MustCompile(`^line (\d+): `)

// level is one open block of the document: its column, and whether it
// is a list (its items start with "-"); a compact list is one written at
// its key's own column ("key:\n- item").
type level struct {
	col     int
	list    bool
	compact bool
}

// indentScan walks the lines of a block-style YAML document, keeping the
// open blocks, to find the first line whose indentation or form does not
// fit them.
type indentScan struct {
	levels    []level
	opens     bool // the last line is a key without a value: a block may follow
	keyCol    int  // the column of that key
	scalarKey int  // the column of the key of a block scalar; -1: none
	scalarCol int  // the column of the block scalar's first line; -1: not seen yet
	flow      int  // the depth of an unclosed [ or { spanning lines
}

// FindIndentMistake returns the 1-based number of the first line that
// does not fit the document's indentation, and what is wrong with it; 0
// when every line fits.
func FindIndentMistake(lines []string) (int, string) {
	s := &indentScan{scalarKey: -1}
	for i, raw := range lines {
		if what := s.line(raw); what != "" {
			return i + 1, what
		}
	}
	return 0, ""
}

// line checks one line and takes it into the scan.
func (s *indentScan) line(raw string) string {
	text := strings.TrimLeft(raw, " \t")
	col := len(raw) - len(text)
	text = strings.TrimSpace(stripComment(text))
	if text == "" || text == "---" {
		return ""
	}
	if s.inScalar(col) {
		return ""
	}
	if s.flow > 0 {
		s.flow += flowDepth(text)
		return ""
	}
	if strings.Contains(raw[:col], "\t") {
		return "a tab in the indentation: YAML indents with spaces only; replace the tab with spaces"
	}
	item := text == "-" || strings.HasPrefix(text, "- ")
	if what := s.place(col, item); what != "" {
		return what
	}
	s.take(col, text, item)
	return ""
}

// place fits a line at col among the open blocks.
func (s *indentScan) place(col int, item bool) string {
	if s.opens && (col > s.keyCol || (item && col == s.keyCol)) {
		s.levels = append(s.levels, level{col: col, list: item, compact: col == s.keyCol})
		return ""
	}
	if len(s.levels) == 0 {
		s.levels = append(s.levels, level{col: col, list: item})
		return ""
	}
	popped := false
	for len(s.levels) > 1 && s.levels[len(s.levels)-1].col > col {
		s.levels, popped = s.levels[:len(s.levels)-1], true
	}
	top := s.levels[len(s.levels)-1]
	if top.compact && !item && top.col == col {
		s.levels = s.levels[:len(s.levels)-1]
		top = s.levels[len(s.levels)-1]
	}
	switch {
	case col > top.col && popped:
		return fmt.Sprintf("indented %d spaces, which lines up with no key above it: indent it as the keys of its block", col)
	case col > top.col:
		return fmt.Sprintf("indented more (%d spaces) than the line before allows: a key belongs under the one above it only when that one ends with ':'; indent it as its neighbours (%d spaces)", col, top.col)
	case col < top.col:
		return fmt.Sprintf("indented %d spaces, which lines up with no key above it: indent it as the keys of its block", col)
	case top.list && !item:
		return "a list item without '-': the items around it start with '- '"
	case !top.list && item:
		return "a list item ('- ') among keys: indent it under the key it belongs to, or write it as a key"
	}
	return ""
}

// take records what the line opens: a block under a key without a value,
// the mapping of a list item, a block scalar, a flow collection.
func (s *indentScan) take(col int, text string, item bool) {
	content, contentCol := text, col
	if item {
		rest := strings.TrimPrefix(text, "-")
		content = strings.TrimLeft(rest, " ")
		contentCol = col + 1 + len(rest) - len(content)
		if isKey(content) {
			s.levels = append(s.levels, level{col: contentCol})
		}
	}
	s.opens, s.keyCol = opensBlock.MatchString(content), contentCol
	if blockScalar.MatchString(content) {
		s.opens, s.scalarKey, s.scalarCol = false, contentCol, -1
	}
	s.flow = flowDepth(content)
}

// inScalar reports whether a line at col belongs to the block scalar
// being read, whose lines are indented at least as its first.
func (s *indentScan) inScalar(col int) bool {
	switch {
	case s.scalarKey < 0:
		return false
	case s.scalarCol < 0 && col > s.scalarKey:
		s.scalarCol = col
		return true
	case s.scalarCol >= 0 && col >= s.scalarCol:
		return true
	}
	s.scalarKey = -1
	return false
}

// opensBlock is a key without a value (but perhaps an anchor or a tag):
// a block may follow.
var opensBlock = regexp.MustCompile(`:(\s+[&!]\S+)*$`)

// blockScalar is a value that starts a block scalar (| or >).
var blockScalar = regexp.MustCompile(`:\s+[|>][-+0-9]*$`)

// isKey reports whether text starts with a key.
func isKey(text string) bool { return strings.HasSuffix(text, ":") || strings.Contains(text, ": ") }

// flowDepth is the brackets text opens ([ {) minus those it closes.
func flowDepth(text string) int {
	return strings.Count(text, "[") + strings.Count(text, "{") - strings.Count(text, "]") - strings.Count(text, "}")
}

// stripComment cuts a comment off a line, outside quotes.
func stripComment(text string) string {
	var quote rune
	for i, r := range text {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || text[i-1] == ' ' || text[i-1] == '\t'):
			return text[:i]
		}
	}
	return text
}
