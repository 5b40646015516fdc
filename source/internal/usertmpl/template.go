package usertmpl

import (
	"fmt"
	"strings"
)

// Template is a parsed attribute template such as "{givenName}" or
// "{sAMAccountName}@example.com": literal text with {attribute}
// placeholders. "{{" and "}}" stand for literal braces.
type Template struct {
	parts []part
}

// part is literal text (attr == "") or one placeholder.
type part struct {
	lit  string
	attr string
}

// ParseTemplate parses s. The error says what is wrong and at which byte
// offset, e.g. `unclosed "{" at offset 4`.
func ParseTemplate(s string) (Template, error) {
	var t Template
	var lit strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '{' && i+1 < len(s) && s[i+1] == '{', c == '}' && i+1 < len(s) && s[i+1] == '}':
			lit.WriteByte(c)
			i++
		case c == '}':
			return Template{}, fmt.Errorf(`lone "}" at offset %d (write "}}" for a literal brace)`, i)
		case c == '{':
			end := strings.IndexByte(s[i+1:], '}')
			if end < 0 {
				return Template{}, fmt.Errorf(`unclosed "{" at offset %d (write "{{" for a literal brace)`, i)
			}
			name := s[i+1 : i+1+end]
			if !IsAttributeName(name) {
				return Template{}, fmt.Errorf(`%q at offset %d is not an attribute name (letters, digits, "-", "_", ";" and "." only)`, "{"+name+"}", i)
			}
			t.parts = appendLiteral(t.parts, &lit)
			t.parts = append(t.parts, part{attr: name})
			i += end + 1
		default:
			lit.WriteByte(c)
		}
	}
	t.parts = appendLiteral(t.parts, &lit)
	return t, nil
}

func appendLiteral(parts []part, lit *strings.Builder) []part {
	if lit.Len() == 0 {
		return parts
	}
	parts = append(parts, part{lit: lit.String()})
	lit.Reset()
	return parts
}

// IsAttributeName reports whether s is an attribute name: an LDAP
// attribute description (a name or OID, optionally with options,
// "cn;lang-en"), a Microsoft Graph property, nested by "." or a directory
// extension ("extension_<app id>_costCenter"), or an Okta profile
// attribute ("cost_center").
func IsAttributeName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == ';' || c == '.' || c == '_') {
			return false
		}
	}
	return true
}

// Attributes returns the attributes the template refers to, in order.
func (t Template) Attributes() []string {
	var attrs []string
	for _, p := range t.parts {
		if p.attr != "" {
			attrs = append(attrs, p.attr)
		}
	}
	return attrs
}

// Literal returns the template's text and true when it has no placeholder.
func (t Template) Literal() (string, bool) {
	if len(t.Attributes()) > 0 {
		return "", false
	}
	return t.Expand(nil)
}

// Expand fills the placeholders with the values get returns. When an
// attribute is missing (get returns ""), the whole value is empty and ok is
// false: a half-filled value such as "@example.com" is never produced.
func (t Template) Expand(get func(attr string) string) (value string, ok bool) {
	if len(t.parts) == 1 && t.parts[0].attr != "" {
		v := get(t.parts[0].attr)
		return v, v != ""
	}
	var b strings.Builder
	for _, p := range t.parts {
		if p.attr == "" {
			b.WriteString(p.lit)
			continue
		}
		v := get(p.attr)
		if v == "" {
			return "", false
		}
		b.WriteString(v)
	}
	return b.String(), true
}

// String returns the template in its canonical written form; parsing it
// gives the same template.
func (t Template) String() string {
	var b strings.Builder
	for _, p := range t.parts {
		if p.attr != "" {
			b.WriteString("{" + p.attr + "}")
			continue
		}
		b.WriteString(strings.NewReplacer("{", "{{", "}", "}}").Replace(p.lit))
	}
	return b.String()
}
