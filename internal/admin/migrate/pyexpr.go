package migrate

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// This file reads the Python expressions of an after_mapping_hook that
// migrate recognises and writes them in CEL: string values (None is the
// empty string, as orgsync reads a missing attribute), comparisons, and,
// or, not, in, is None, slices, + and the common string methods.

// token is one token of a Python expression.
type token struct {
	kind string // "str", "num", "name", "op", "end"
	text string // the string's value, or the token as written
}

// tokenize splits a Python expression into tokens.
func tokenize(s string) ([]token, error) {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case c == '\'' || c == '"':
			v, n, err := pyString(s[i:])
			if err != nil {
				return nil, err
			}
			out = append(out, token{"str", v})
			i += n
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			out = append(out, token{"num", s[i:j]})
			i = j
		case c == '_' || unicode.IsLetter(rune(c)):
			j := i
			for j < len(s) && (s[j] == '_' || unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j]))) {
				j++
			}
			out = append(out, token{"name", s[i:j]})
			i = j
		default:
			op := string(c)
			if i+1 < len(s) {
				if two := s[i : i+2]; two == "==" || two == "!=" || two == "<=" || two == ">=" {
					op = two
				}
			}
			if len(op) == 1 && !strings.ContainsRune("()[],.:+<>", rune(c)) {
				return nil, fmt.Errorf("%q is not part of what migrate reads", op)
			}
			out = append(out, token{"op", op})
			i += len(op)
		}
	}
	return append(out, token{kind: "end"}), nil
}

// pyString reads a Python string literal at the start of s and returns its
// value and length.
func pyString(s string) (string, int, error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == q:
			return b.String(), i + 1, nil
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, fmt.Errorf("an unterminated string")
}

// cel is a CEL expression with its type: "string", "bool", "int" or
// "list".
type cel struct {
	text, typ string
}

// scope is what a hook's expressions can name: its variables (their CEL
// values so far) and how to read a source attribute.
type scope struct {
	vars map[string]cel
	// attribute returns the CEL of source_attributes[name].
	attribute func(name string) cel
	// field returns the CEL of target_attributes[name] as the hook has
	// left it so far; ok false for an unknown field.
	field func(name string) (cel, bool)
}

// parser reads one expression's tokens.
type parser struct {
	toks []token
	pos  int
	sc   *scope
}

// translate returns the CEL of a Python expression.
func (sc *scope) translate(expr string) (cel, error) {
	toks, err := tokenize(expr)
	if err != nil {
		return cel{}, err
	}
	p := &parser{toks: toks, sc: sc}
	c, err := p.or()
	if err != nil {
		return cel{}, err
	}
	if p.peek().kind != "end" {
		return cel{}, fmt.Errorf("unexpected %q", p.peek().text)
	}
	return c, nil
}

// peek returns the token at the current position (the end token past
// the end); ahead the one after it.
func (p *parser) peek() token { return p.ahead(0) }

func (p *parser) ahead(n int) token {
	if p.pos+n >= len(p.toks) {
		return token{kind: "end"}
	}
	return p.toks[p.pos+n]
}

// next returns the current token and moves past it (never past the end).
func (p *parser) next() token {
	t := p.peek()
	if p.pos < len(p.toks) {
		p.pos++
	}
	return t
}

func (p *parser) isWord(w string) bool {
	t := p.peek()
	return t.kind == "name" && t.text == w
}

func (p *parser) isOp(op string) bool {
	t := p.peek()
	return t.kind == "op" && t.text == op
}

func (p *parser) expect(op string) error {
	if !p.isOp(op) {
		return fmt.Errorf("expected %q", op)
	}
	p.pos++
	return nil
}

func (p *parser) or() (cel, error) {
	return p.binary("or", " || ", p.and)
}

func (p *parser) and() (cel, error) {
	return p.binary("and", " && ", p.not)
}

// binary reads operands joined by the keyword word.
func (p *parser) binary(word, op string, operand func() (cel, error)) (cel, error) {
	c, err := operand()
	if err != nil {
		return c, err
	}
	for p.isWord(word) {
		p.pos++
		r, err := operand()
		if err != nil {
			return r, err
		}
		c = cel{"(" + truth(c) + op + truth(r) + ")", "bool"}
	}
	return c, nil
}

func (p *parser) not() (cel, error) {
	if p.isWord("not") {
		p.pos++
		c, err := p.not()
		return cel{"!(" + truth(c) + ")", "bool"}, err
	}
	return p.comparison()
}

// truth is a value as a condition: a string is true when it is not empty
// (None reads as empty), a list when it has items.
func truth(c cel) string {
	switch c.typ {
	case "string":
		return c.text + ` != ""`
	case "list":
		return "size(" + c.text + ") > 0"
	case "int":
		return c.text + " != 0"
	}
	return c.text
}

func (p *parser) comparison() (cel, error) {
	l, err := p.sum()
	if err != nil {
		return l, err
	}
	switch {
	case p.isOp("==") || p.isOp("!="):
		op := p.next().text
		r, err := p.sum()
		if err == nil && r.typ != l.typ {
			err = fmt.Errorf("compares a %s with a %s", l.typ, r.typ)
		}
		return cel{"(" + l.text + " " + op + " " + r.text + ")", "bool"}, err
	case p.isWord("is"):
		p.pos++
		neg := p.isWord("not")
		if neg {
			p.pos++
		}
		if !p.isWord("None") {
			return cel{}, fmt.Errorf("is compares with None only here")
		}
		p.pos++
		if neg {
			return cel{"(" + l.text + ` != "")`, "bool"}, nil
		}
		return cel{"(" + l.text + ` == "")`, "bool"}, nil
	case p.isWord("in") || p.isWord("not") && p.ahead(1).text == "in":
		neg := p.isWord("not")
		p.pos += 1 + boolInt(neg)
		r, err := p.sum()
		if err != nil {
			return r, err
		}
		if l.typ != "string" || r.typ != "string" && r.typ != "list" {
			return r, fmt.Errorf("in tests a text in a text or a list only here")
		}
		text := "(" + l.text + " in " + r.text + ")"
		if r.typ == "string" {
			text = "(" + r.text + ".contains(" + l.text + "))"
		}
		if neg {
			text = "!" + text
		}
		return cel{text, "bool"}, nil
	}
	return l, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (p *parser) sum() (cel, error) {
	c, err := p.postfix()
	for err == nil && p.isOp("+") {
		p.pos++
		var r cel
		if r, err = p.postfix(); err == nil {
			if r.typ != c.typ || c.typ == "bool" {
				return c, fmt.Errorf("adds a %s and a %s", c.typ, r.typ)
			}
			c = cel{"(" + c.text + " + " + r.text + ")", c.typ}
		}
	}
	return c, err
}

// postfix reads an atom and its method calls and subscripts.
func (p *parser) postfix() (cel, error) {
	c, err := p.atom()
	for err == nil {
		switch {
		case p.isOp("."):
			p.pos++
			name := p.next()
			if name.kind != "name" {
				return c, fmt.Errorf("a method name is missing")
			}
			c, err = p.method(c, name.text)
		case p.isOp("["):
			p.pos++
			c, err = p.subscript(c)
		default:
			return c, nil
		}
	}
	return c, err
}

// stringMethods are the Python string methods migrate writes in CEL.
var stringMethods = map[string]string{
	"lower": "lower", "upper": "upper", "strip": "trim",
	"startswith": "startsWith", "endswith": "endsWith", "replace": "replace",
}

// method reads a method call on c.
func (p *parser) method(c cel, name string) (cel, error) {
	args, err := p.args()
	if err != nil {
		return c, err
	}
	to, ok := stringMethods[name]
	if !ok || c.typ != "string" {
		return c, fmt.Errorf("the method %s is not one migrate reads", name)
	}
	texts := make([]string, len(args))
	for i, a := range args {
		if a.typ != "string" {
			return c, fmt.Errorf("the method %s with something else than a text", name)
		}
		texts[i] = a.text
	}
	if want := map[string]int{"lower": 0, "upper": 0, "strip": 0, "startswith": 1, "endswith": 1, "replace": 2}[name]; len(args) != want {
		return c, fmt.Errorf("the method %s with %d arguments", name, len(args))
	}
	typ := "string"
	if name == "startswith" || name == "endswith" {
		typ = "bool"
	}
	return cel{c.text + "." + to + "(" + strings.Join(texts, ", ") + ")", typ}, nil
}

// args reads a call's parenthesized arguments.
func (p *parser) args() ([]cel, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	var out []cel
	for !p.isOp(")") {
		a, err := p.or()
		if err != nil {
			return nil, err
		}
		out = append(out, a)
		if !p.isOp(",") {
			break
		}
		p.pos++
	}
	return out, p.expect(")")
}

// subscript reads [i] or [a:b] on a string.
func (p *parser) subscript(c cel) (cel, error) {
	if c.typ != "string" {
		return c, fmt.Errorf("a subscript of something else than a string")
	}
	from, to := 0, -1
	if p.peek().kind == "num" {
		from, _ = strconv.Atoi(p.next().text)
	}
	single := !p.isOp(":")
	if single {
		to = from + 1
	} else {
		p.pos++
		if p.peek().kind == "num" {
			to, _ = strconv.Atoi(p.next().text)
		}
	}
	if err := p.expect("]"); err != nil {
		return c, err
	}
	return cel{slice(c.text, from, to), "string"}, nil
}

// slice is Python's s[from:to] (to -1: to the end) in CEL, which has no
// slice that stops at the end of a short string.
func slice(s string, from, to int) string {
	f := strconv.Itoa(from)
	if to < 0 {
		return fmt.Sprintf(`(%s.size() > %s ? %s.substring(%s) : "")`, s, f, s, f)
	}
	t := strconv.Itoa(to)
	return fmt.Sprintf(`(%s.size() >= %s ? %s.substring(%s, %s) : %s.size() > %s ? %s.substring(%s) : "")`, s, t, s, f, t, s, f, s, f)
}

// atom reads a literal, a name, a parenthesized expression or a list.
func (p *parser) atom() (cel, error) {
	t := p.next()
	switch {
	case t.kind == "str":
		return cel{celString(t.text), "string"}, nil
	case t.kind == "num":
		return cel{t.text, "int"}, nil
	case t.kind == "op" && (t.text == "(" || t.text == "["):
		return p.group(t.text)
	case t.kind != "name":
		return cel{}, fmt.Errorf("unexpected %q", t.text)
	}
	switch t.text {
	case "None":
		return cel{`""`, "string"}, nil
	case "True", "False":
		return cel{strings.ToLower(t.text), "bool"}, nil
	case "source_groups":
		return cel{"directoryGroups", "list"}, nil
	case "source_attributes", "target_attributes":
		return p.attribute(t.text)
	}
	if v, ok := p.sc.vars[t.text]; ok {
		return v, nil
	}
	return cel{}, fmt.Errorf("%s is not a name migrate knows here", t.text)
}

// group reads (expr), a tuple or a list of literals.
func (p *parser) group(open string) (cel, error) {
	closer := map[string]string{"(": ")", "[": "]"}[open]
	var items []cel
	for !p.isOp(closer) {
		c, err := p.or()
		if err != nil {
			return c, err
		}
		items = append(items, c)
		if !p.isOp(",") {
			break
		}
		p.pos++
	}
	if err := p.expect(closer); err != nil {
		return cel{}, err
	}
	if open == "(" && len(items) == 1 {
		return cel{"(" + items[0].text + ")", items[0].typ}, nil
	}
	texts := make([]string, len(items))
	for i, it := range items {
		if it.typ != "string" {
			return cel{}, fmt.Errorf("a list of something else than texts")
		}
		texts[i] = it.text
	}
	return cel{"[" + strings.Join(texts, ", ") + "]", "list"}, nil
}

// attribute reads source_attributes['x'], source_attributes.get('x'[,
// default]) or the same of target_attributes.
func (p *parser) attribute(dict string) (cel, error) {
	var name string
	var def *cel
	switch {
	case p.isOp("["):
		p.pos++
		t := p.next()
		if t.kind != "str" {
			return cel{}, fmt.Errorf("%s[...] with something else than a name", dict)
		}
		name = t.text
		if err := p.expect("]"); err != nil {
			return cel{}, err
		}
	case p.isOp(".") && p.ahead(1).text == "get":
		p.pos += 2
		args, err := p.args()
		if err != nil || len(args) == 0 || !strings.HasPrefix(args[0].text, `"`) {
			return cel{}, fmt.Errorf("%s.get with something else than a name", dict)
		}
		name, _ = strconv.Unquote(args[0].text)
		if len(args) > 2 || len(args) == 2 && args[1].typ != "string" {
			return cel{}, fmt.Errorf("%s.get with a default that is not a text", dict)
		}
		if len(args) == 2 {
			def = &args[1]
		}
	default:
		return cel{}, fmt.Errorf("%s used otherwise than to read one attribute", dict)
	}
	var c cel
	if dict == "target_attributes" {
		v, ok := p.sc.field(name)
		if !ok {
			return cel{}, fmt.Errorf("target_attributes has no %q", name)
		}
		c = v
	} else {
		c = p.sc.attribute(name)
	}
	if def != nil {
		c = cel{"(" + c.text + ` != "" ? ` + c.text + " : " + def.text + ")", "string"}
	}
	return c, nil
}
