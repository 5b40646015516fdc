package expr

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// docsExpressions returns the manual's section on expressions.
func docsExpressions(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../docs/sources.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "## Expressions")
	end := strings.Index(text[start+1:], "\n## ")
	if start < 0 || end < 0 {
		t.Fatal("docs/sources.md has no section on expressions")
	}
	return text[start : start+1+end]
}

// TestDocsExample: the manual's example source compiles and does what the
// manual says on a record.
func TestDocsExample(t *testing.T) {
	t.Parallel()
	doc := docsExpressions(t)
	block := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(doc)
	if block == nil {
		t.Fatal("no YAML example in the section on expressions")
	}
	var cfg struct{ Sources []Config }
	if err := yaml.Unmarshal([]byte(block[1]), &cfg); err != nil || len(cfg.Sources) != 1 {
		t.Fatalf("the example does not parse as one source: %v", err)
	}
	p, err := Compile(cfg.Sources[0])
	if err != nil || cfg.Sources[0].Filter == "" || cfg.Sources[0].Groups == "" || len(cfg.Sources[0].Set) == 0 {
		t.Fatalf("the example's expressions: %v (%+v)", err, cfg.Sources[0])
	}
	design := record(nil, map[string]string{"employeeType": "Staff", "department": "Design", "displayName": "Ann Lee", "c": "de"}, "staff")
	out, err := p.Run(design)
	if err != nil || !out.Keep || !slices.Equal(out.Groups, []string{"Design", "Creative Cloud All Apps"}) ||
		design.Fields[FirstName] != "Ann" || design.Fields[Country] != "DE" {
		t.Errorf("a designer: %+v %q, %v", out, design.Fields, err)
	}
	contractor := record(nil, map[string]string{"employeeType": "Staff", "department": "", "displayName": "", "c": ""}, "contractors")
	if out, err := p.Run(contractor); err != nil || out.Keep {
		t.Errorf("a contractor: %+v, %v; want left out", out, err)
	}
}

// TestDocsInlineExpressions: every expression the manual quotes in its
// text compiles (as a filter, groups or set expression), except the ones
// it quotes as mistakes.
func TestDocsInlineExpressions(t *testing.T) {
	t.Parallel()
	mistakes := []string{`user.contry`, `user.country == 1`}
	prose := regexp.MustCompile("(?s)```.*?```").ReplaceAllString(docsExpressions(t), "")
	spans := regexp.MustCompile("`([^`\n]*(?:user\\.|directoryGroups)[^`\n]*)`").FindAllStringSubmatch(prose, -1)
	if len(spans) < 10 {
		t.Fatalf("only %d expressions found in the manual", len(spans))
	}
	for _, s := range spans {
		text := s[1]
		if slices.Contains(mistakes, text) || strings.Contains(text, "<") || strings.Contains(text, ".csv:") {
			continue // a mistake, a pattern (user.<field>) or a message
		}
		var ok bool
		for _, c := range []Config{{Filter: text}, {Groups: text}, {Set: map[string]string{"country": text}}, {Filter: "size(" + text + ") >= 0"}} {
			if _, err := Compile(c); err == nil {
				ok = true
				break
			}
		}
		_, err := Compile(Config{Filter: text})
		if !ok {
			t.Errorf("the manual's %s does not compile: %v", text, err)
		}
	}
	for _, m := range mistakes {
		if _, err := Compile(Config{Filter: m + ` == "DE"`}); err == nil {
			t.Errorf("the manual's mistake %s compiles", m)
		}
	}
}
