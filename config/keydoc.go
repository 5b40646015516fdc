// The manual's key tables (docs/*.md), as parseKeyTables reads them:
// each row of a Markdown table whose first column is headed "key" names
// one or more configuration keys and gives their meaning and, in a
// "default" column, their default. The configuration's JSON Schema takes
// its descriptions and the source kinds' defaults from here, so that the
// manual is the one place they are written.
//
// A key cell holds key paths in backticks: `target.orgId`; several keys
// share a row as `a`, `b` or `a` / `b`, where a later key without a dot
// (`maxWait`, `.format`) is a sibling of the first. `[i]` and `[]` stand
// for a list item, `<field>` for any key of a mapping, and a trailing `…`
// for every key that starts so (`users.default…`). A default cell gives
// one backticked value for all the row's keys, or one per key in the same
// order ("`1s` / `1m`"); anything else there (none, —, prose) is no
// default, and "required" or "— (required)" marks a required key.

package config

import (
	"bufio"
	"regexp"
	"slices"
	"strings"
)

// docKey is one documented key.
type docKey struct {
	// Path is the key's path: "target.orgId", "targets[].name",
	// "sources[].set.*", "users.default" with Prefix set.
	Path string
	// Prefix is set when the row named every key that starts with Path.
	Prefix bool
	// Default is the default as written in the default column (YAML
	// text, "25", "1m", "[firstname, lastname]"); "" when none is given.
	Default string
	// Required is set when the default column says the key is required
	// ("required", "— (required)"), not only under a condition.
	Required bool
	// Meaning is the meaning column as plain text.
	Meaning string
}

// keyTable is one key table with what it is about.
type keyTable struct {
	// Tags are the backticked words of the nearest heading above the table
	// and of the paragraph line just above it ("source/csvfile", "csv:").
	Tags []string
	Keys []docKey
}

// parseKeyTables returns the key tables of a Markdown document, in order.
func parseKeyTables(doc string) []keyTable {
	var (
		tables  []keyTable
		heading []string
		above   string // the last non-blank line that is no table row
		header  []string
		cur     *keyTable
	)
	sc := bufio.NewScanner(strings.NewReader(doc))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "|"):
			cells := splitRow(line)
			switch {
			case header == nil:
				header = cells
				if len(cells) > 0 && strings.EqualFold(cells[0], "key") {
					tables = append(tables, keyTable{Tags: append(append([]string(nil), heading...), ticked(above)...)})
					cur = &tables[len(tables)-1]
				}
			case cur != nil && !isRule(cells):
				cur.Keys = append(cur.Keys, rowKeys(header, cells)...)
			}
			continue
		case strings.HasPrefix(line, "#"):
			heading, above = ticked(line), ""
		case line != "":
			above = line
		}
		header, cur = nil, nil
	}
	return tables
}

// splitRow returns the cells of a table row; "\|" is a | inside a cell.
func splitRow(line string) []string {
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	var cells []string
	var cell strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cell.WriteByte('|')
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(cell.String()))
}

// isRule reports whether a row is the |---|---| line under the header.
func isRule(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, "-: ") != "" {
			return false
		}
	}
	return true
}

var tickedRE = regexp.MustCompile("`([^`]+)`")

// ticked returns the backticked words of s.
func ticked(s string) []string {
	var out []string
	for _, m := range tickedRE.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// rowKeys returns the keys of one row under header.
func rowKeys(header, cells []string) []docKey {
	col := func(name string) string {
		for i, h := range header {
			if strings.EqualFold(h, name) && i < len(cells) {
				return cells[i]
			}
		}
		return ""
	}
	meaning := plainCell(col("meaning"))
	if meaning == "" || strings.EqualFold(meaning, "see above") {
		return nil // the keys are described elsewhere
	}
	paths := keyPaths(cells[0])
	defaults := defaultsOf(col("default"), len(paths))
	required := col("default") == "required" || col("default") == "— (required)"
	keys := make([]docKey, len(paths))
	for i, p := range paths {
		prefix := strings.HasSuffix(p, "…")
		keys[i] = docKey{Path: strings.TrimSuffix(p, "…"), Prefix: prefix, Default: defaults[i], Required: required, Meaning: meaning}
	}
	return keys
}

// keyPaths returns the key paths of a key cell, each in the form of docKey.Path.
func keyPaths(cell string) []string {
	words := ticked(cell)
	var out []string
	for i, w := range words {
		w = normalize(w)
		if i > 0 && (!strings.Contains(w, ".") || strings.HasPrefix(w, ".")) {
			first := out[0]
			parent := ""
			if cut := strings.LastIndex(first, "."); cut >= 0 {
				parent = first[:cut+1]
			}
			w = parent + strings.TrimPrefix(w, ".")
		}
		out = append(out, w)
	}
	return out
}

var (
	itemRE  = regexp.MustCompile(`\[(i|)\]`)
	fieldRE = regexp.MustCompile(`<[a-z]+>`)
)

// normalize writes a documented path in the form of docKey.Path.
func normalize(p string) string {
	p = itemRE.ReplaceAllString(strings.TrimSpace(p), "[]")
	return fieldRE.ReplaceAllString(p, "*")
}

// defaultsOf returns the default of each of n keys from a default cell.
func defaultsOf(cell string, n int) []string {
	out := make([]string, n)
	parts := splitList(cell)
	switch {
	case len(parts) == n:
	case len(parts) == 1:
		parts = slices.Repeat(parts[:1], n)
	default:
		return out
	}
	for i, p := range parts {
		if w := ticked(p); len(w) == 1 && "`"+w[0]+"`" == p {
			out[i] = w[0]
		}
	}
	return out
}

// splitList splits a default cell listing one value per key, separated by
// ", " or " / ", outside backticks.
func splitList(cell string) []string {
	var parts []string
	start, in := 0, false
	for i := 0; i < len(cell); i++ {
		switch {
		case cell[i] == '`':
			in = !in
		case in:
		case strings.HasPrefix(cell[i:], ", "):
			parts = append(parts, strings.TrimSpace(cell[start:i]))
			start = i + 2
		case strings.HasPrefix(cell[i:], " / "):
			parts = append(parts, strings.TrimSpace(cell[start:i]))
			start = i + 3
		}
	}
	return append(parts, strings.TrimSpace(cell[start:]))
}

var (
	linkRE = regexp.MustCompile(`\[([^\]]+)\]\([^)]+\)`)
	boldRE = regexp.MustCompile(`\*\*([^*]+)\*\*`)
)

// plainCell returns a Markdown cell as plain text: links as their text, no
// emphasis marks or backticks.
func plainCell(s string) string {
	s = linkRE.ReplaceAllString(s, "$1")
	s = boldRE.ReplaceAllString(s, "$1")
	return strings.TrimSpace(strings.ReplaceAll(s, "`", ""))
}
