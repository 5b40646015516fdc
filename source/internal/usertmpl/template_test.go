package usertmpl_test

import (
	"strings"
	"testing"

	"github.com/orgsync/orgsync/source/internal/usertmpl"
)

func TestTemplate(t *testing.T) {
	t.Parallel()
	attrs := map[string]string{"givenName": "Ada", "sAMAccountName": "ada", "sn": "Lovelace", "hostile": "*)(|(uid=*"}
	get := func(a string) string { return attrs[a] }
	for _, tc := range []struct {
		in, want string
		ok       bool
		attrs    []string
	}{
		{"{givenName}", "Ada", true, []string{"givenName"}},
		{"{sAMAccountName}@example.com", "ada@example.com", true, []string{"sAMAccountName"}},
		{"{givenName} {sn}", "Ada Lovelace", true, []string{"givenName", "sn"}},
		{"{{literal}} {sn}", "{literal} Lovelace", true, []string{"sn"}},
		{"plain", "plain", true, nil},
		{"{hostile}", "*)(|(uid=*", true, []string{"hostile"}},
		{"{missing}@example.com", "", false, []string{"missing"}},
		{"{sn}-{missing}", "", false, []string{"sn", "missing"}},
	} {
		tpl, err := usertmpl.ParseTemplate(tc.in)
		if err != nil {
			t.Fatalf("ParseTemplate(%q): %v", tc.in, err)
		}
		got, ok := tpl.Expand(get)
		if got != tc.want || ok != tc.ok || strings.Join(tpl.Attributes(), ",") != strings.Join(tc.attrs, ",") {
			t.Errorf("%q: Expand = %q, %v; attrs %v; want %q, %v, %v", tc.in, got, ok, tpl.Attributes(), tc.want, tc.ok, tc.attrs)
		}
	}
}

func TestTemplateErrors(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"{mail":        `unclosed "{" at offset 0`,
		"x}":           `lone "}" at offset 1`,
		"{}":           "is not an attribute name",
		"{given name}": "is not an attribute name",
		"a{b{c}}":      "is not an attribute name",
	} {
		if _, err := usertmpl.ParseTemplate(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseTemplate(%q) = %v, want %q", in, err, want)
		}
	}
}

// FuzzTemplate checks that parsing never panics, that a parsed template
// written back in canonical form parses to the same template, and that
// expansion uses exactly the attributes the template names.
func FuzzTemplate(f *testing.F) {
	for _, s := range []string{"{mail}", "{sAMAccountName}@example.com", "{{x}}", "{", "}", "{a}{b}", "a{{{b}}}c", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tpl, err := usertmpl.ParseTemplate(s)
		if err != nil {
			return
		}
		again, err := usertmpl.ParseTemplate(tpl.String())
		if err != nil || again.String() != tpl.String() {
			t.Fatalf("%q: canonical form %q does not round-trip: %v", s, tpl.String(), err)
		}
		asked := map[string]bool{}
		v, ok := tpl.Expand(func(a string) string { asked[a] = true; return "<" + a + ">" })
		if !ok {
			t.Fatalf("%q: expansion with every attribute present failed", s)
		}
		for _, a := range tpl.Attributes() {
			if !asked[a] || !strings.Contains(v, "<"+a+">") {
				t.Fatalf("%q: attribute %q not expanded in %q", s, a, v)
			}
		}
		if lit, isLit := tpl.Literal(); isLit && lit != v {
			t.Fatalf("%q: literal %q differs from expansion %q", s, lit, v)
		}
	})
}
