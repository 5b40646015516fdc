package migrate

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// translateExtension translates the extension file
// (directory_users.extension): its extended attributes, its extended
// groups and its after_mapping_hook, which orgsync cannot run: migrate
// proposes CEL expressions for the statements it recognises.
func (m *migration) translateExtension(src *source) {
	s := m.main.get("directory_users.extension")
	if s == nil {
		return
	}
	files := m.connectorFiles(s)
	m.rep.add(Translated, nil, "read: its settings follow", s)
	if len(files) == 0 {
		return
	}
	prefix := ""
	if files.get("extensions") != nil { // the older form: extensions: [{context: per_user, ...}]
		files.get("extensions").done = true
		for _, it := range files[len(files)-1].children("extensions") {
			it.done = true
			prefix = it.canon + "."
			if c := files.get(prefix + "context"); c != nil {
				m.rep.add(Translated, nil, "per-user code: orgsync's expressions run for each user", c)
			}
		}
	}
	get := func(k string) *setting { return files.get(prefix + k) }
	m.extendedAttributes(src, get("extended_attributes"))
	if g := get("extended_adobe_groups"); g != nil {
		groups := m.qualified(g.strings())
		m.known = append(m.known, groups...)
		if len(groups) > 0 {
			m.managed = groups
			n := m.root.set("policy.managedGroups", groups, "from "+g.origin())
			n.proposal = m.groupsOff()
		}
		m.rep.add(Translated, []string{"policy.managedGroups"}, "groups the hook may add are managed like the mapping's, as with the incumbent", g)
	}
	if h := get("after_mapping_hook"); h != nil {
		m.hook(src, h)
	} else {
		m.rep.refused(files.name()+": after_mapping_hook (not set)", "the incumbent refuses an extension file without it")
	}
}

// extendedAttributes makes the extension's attributes readable by the
// source's expressions.
func (m *migration) extendedAttributes(src *source, s *setting) {
	if s == nil {
		return
	}
	m.extraAttributes = append(m.extraAttributes, s.strings()...)
	switch {
	case src == nil:
		m.rep.add(NotUsed, nil, "no source", s)
	case src.kind == "csv":
		m.rep.add(Translated, nil, "every CSV column that is no user field is an attribute of the expressions (user.attributes.<column>)", s)
	default:
		m.rep.add(Translated, []string{src.at + ".users.extraAttributes"}, "read with each user, for the expressions (user.attributes.<name>)", s)
	}
}

// hookStmt is one statement of an after_mapping_hook.
type hookStmt struct {
	line int
	text string     // the statement as written, without its block
	body []hookStmt // an if's, elif's or else's block
}

// hookEffects is what the statements of a hook do, in CEL.
type hookEffects struct {
	sc     *scope
	fields map[string]cel // target_attributes changed so far
	groups []string       // the parts of the groups expression
	left   []string       // statements with no proposal, each with why
	notes  []string
	// known are the groups the incumbent knows (its mapping's targets,
	// the extended and the excluded groups): it ignores any other group a
	// hook adds.
	known []string
}

// knownOnly returns the list of groups a target_groups.add (or update) of
// v adds, as the incumbent takes them: only the groups it knows. ok is
// false when it adds none.
func (e *hookEffects) knownOnly(st hookStmt, call string, v cel) (string, bool) {
	if call == "add" && strings.HasPrefix(v.text, `"`) { // a literal group
		name, _ := strconv.Unquote(v.text)
		if !slices.Contains(e.known, name) {
			e.notes = append(e.notes, fmt.Sprintf("line %d: %s: the incumbent ignores %q, a group it does not know (not in the mapping nor extended_adobe_groups): left out", st.line, st.text, name))
			return "", false
		}
		return "[" + v.text + "]", true
	}
	list := v.text
	if call == "add" {
		list = "[" + v.text + "]"
	}
	if len(e.known) == 0 {
		e.notes = append(e.notes, fmt.Sprintf("line %d: %s: the incumbent ignores the groups it does not know, and it knows none here: left out", st.line, st.text))
		return "", false
	}
	quoted := make([]string, len(e.known))
	for i, k := range e.known {
		quoted[i] = celString(k)
	}
	return list + ".filter(g, g in [" + strings.Join(quoted, ", ") + "])", true
}

// hookFields are the target_attributes keys of the incumbent with the
// orgsync user fields they are.
var hookFields = map[string]string{
	"email": "email", "username": "username", "domain": "domain", "country": "country",
	"firstname": "firstname", "firstName": "firstname", "lastname": "lastname", "lastName": "lastname",
}

// hook translates the after_mapping_hook at h.
func (m *migration) hook(src *source, h *setting) {
	code := h.str()
	rep := &HookReport{Where: fmt.Sprintf("%s:%d", h.file.name, h.line), Code: code}
	m.rep.Hook = rep
	if src == nil {
		m.rep.add(NoEquivalent, nil, "no source to attach expressions to", h)
		return
	}
	stmts, err := parseHook(code, h.line+1)
	e := &hookEffects{fields: map[string]cel{}, known: slices.Concat(m.known, m.qualified(m.main.get("adobe_users.exclude_adobe_groups").strings()))}
	e.sc = m.hookScope(src, e)
	if err != nil {
		e.left = append(e.left, err.Error())
	} else {
		e.run(stmts, "")
	}
	m.hookOutput(src, h, rep, e)
}

// hookScope is what the hook's expressions name for this source.
func (m *migration) hookScope(src *source, e *hookEffects) *scope {
	return &scope{
		vars: map[string]cel{},
		attribute: func(name string) cel {
			if f, ok := src.columns[name]; ok { // a renamed CSV column
				return cel{"user." + f, "string"}
			}
			if f, ok := sourceFields(src.kind)[name]; ok {
				return cel{"user." + f, "string"}
			}
			if !slices.Contains(m.extraAttributes, name) && src.kind != "csv" {
				m.extraAttributes = append(m.extraAttributes, name)
			}
			return cel{attributeCEL(name), "string"}
		},
		field: func(name string) (cel, bool) {
			f, ok := hookFields[name]
			if !ok {
				return cel{}, false
			}
			if c, ok := e.fields[f]; ok {
				return c, true
			}
			return cel{"user." + f, "string"}, true
		},
	}
}

// sourceFields are the source_attributes keys the incumbent's connector
// fills from a user's own fields, with the orgsync fields they are.
func sourceFields(kind string) map[string]string {
	if kind == "csv" {
		return map[string]string{"email": "email", "firstname": "firstname", "lastname": "lastname", "country": "country", "type": "type", "username": "username", "domain": "domain"}
	}
	return map[string]string{"email": "email", "username": "username", "domain": "domain", "givenName": "firstname", "firstName": "firstname",
		"sn": "lastname", "lastName": "lastname", "c": "country", "identity_type": "type"}
}

// celIdent is a name CEL reads as a field selection.
var celIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// attributeCEL reads an extra attribute in CEL, guarded: an attribute the
// user (a CSV file's header, a directory entry) lacks reads as "", as the
// incumbent's source_attributes.get gives None for it.
func attributeCEL(name string) string {
	if celIdent.MatchString(name) {
		return "user.attributes.?" + name + `.orValue("")`
	}
	return "user.attributes[?" + celString(name) + `].orValue("")`
}

// hookOutput writes the hook's expressions (in force when every statement
// is covered, else commented out as proposals) and reports them.
func (m *migration) hookOutput(src *source, h *setting, rep *HookReport, e *hookEffects) {
	var keys []string
	from := "from " + h.origin() + " (translated from Python)"
	if len(e.groups) > 0 {
		expr := strings.Join(e.groups, " + ")
		rep.Proposals = append(rep.Proposals, "groups: "+expr)
		keys = append(keys, "groups")
		n := src.item.set("groups", expr, from)
		n.proposal = len(e.left) > 0 || m.groupsOff()
		if m.groupsOff() {
			n.comment = "commented out: the incumbent does not process groups; " + from
		}
	}
	for _, f := range []string{"email", "username", "domain", "firstname", "lastname", "country"} {
		c, ok := e.fields[f]
		if !ok {
			continue
		}
		rep.Proposals = append(rep.Proposals, "set."+f+": "+c.text)
		keys = append(keys, "set."+f)
		n := src.item.set("set."+f, c.text, from)
		n.proposal = len(e.left) > 0
	}
	rep.Left = append(e.left, e.notes...)
	rep.Applied = len(e.left) == 0 && len(rep.Proposals) > 0
	if len(m.extraAttributes) > 0 && src.kind != "csv" {
		src.block.set("users.extraAttributes", m.extraAttributes, "from the extension's extended_attributes and the attributes the hook reads")
	}
	to := make([]string, len(keys))
	for i, k := range keys {
		to[i] = "sources[0]." + k
	}
	switch {
	case rep.Applied:
		m.rep.add(Differs, to, "translated into expressions (see the hook section): check them with orgsync plan --explain USER", h)
	case len(keys) > 0:
		m.rep.add(NoEquivalent, to, "partly recognised: expressions proposed, commented out (see the hook section); until the hook's logic is written, orgsync gives the users what the mapping alone gives them", h).risk(AppliesMore)
	default:
		m.rep.add(NoEquivalent, nil, "orgsync runs no Python: write the hook's logic as expressions (see the hook section); until then orgsync gives the users what the mapping alone gives them", h).risk(AppliesMore)
	}
}

// parseHook splits a hook's code into statements and blocks by their
// indentation; first is the line number of its first line.
func parseHook(code string, first int) ([]hookStmt, error) {
	type line struct {
		n, indent int
		text      string
	}
	var lines []line
	for i, l := range strings.Split(code, "\n") {
		t := strings.TrimRight(stripComment(l), " \t\r")
		if strings.TrimSpace(t) == "" {
			continue
		}
		lines = append(lines, line{first + i, len(t) - len(strings.TrimLeft(t, " \t")), strings.TrimSpace(t)})
	}
	var block func(i, indent int) ([]hookStmt, int, error)
	block = func(i, indent int) ([]hookStmt, int, error) {
		var out []hookStmt
		for i < len(lines) && lines[i].indent >= indent {
			l := lines[i]
			if l.indent > indent {
				return nil, i, fmt.Errorf("line %d: unexpected indentation", l.n)
			}
			st := hookStmt{line: l.n, text: l.text}
			i++
			if strings.HasSuffix(l.text, ":") {
				if i >= len(lines) || lines[i].indent <= indent {
					return nil, i, fmt.Errorf("line %d: a block without statements", l.n)
				}
				var err error
				if st.body, i, err = block(i, lines[i].indent); err != nil {
					return nil, i, err
				}
			}
			out = append(out, st)
		}
		return out, i, nil
	}
	if len(lines) == 0 {
		return nil, nil
	}
	stmts, _, err := block(0, lines[0].indent)
	return stmts, err
}

// stripComment cuts a # comment off a line of Python (not inside a string).
func stripComment(l string) string {
	var quote byte
	for i := 0; i < len(l); i++ {
		switch c := l[i]; {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '\'' || c == '"'):
			quote = c
		case quote == 0 && c == '#':
			return l[:i]
		}
	}
	return l
}

// Statements migrate recognises.
var (
	ifStmt     = regexp.MustCompile(`^(if|elif)\s+(.+):$`)
	assignStmt = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.+)$`)
	fieldStmt  = regexp.MustCompile(`^target_attributes\[\s*(['"])([A-Za-z]+)['"]\s*\]\s*=\s*(.+)$`)
	addStmt    = regexp.MustCompile(`^target_groups\.(add|update)\((.+)\)$`)
	dropStmt   = regexp.MustCompile(`^target_groups\.(discard|remove|clear|difference_update|intersection_update)\(`)
	logStmt    = regexp.MustCompile(`^logger\.[a-z]+\(`)
)

// run executes stmts symbolically under the condition pc ("" for always).
func (e *hookEffects) run(stmts []hookStmt, pc string) {
	taken := "" // the conditions of an if chain's earlier branches, or-ed
	for _, st := range stmts {
		switch g := ifStmt.FindStringSubmatch(st.text); {
		case g != nil:
			if g[1] == "if" {
				taken = ""
			}
			c, err := e.sc.translate(g[2])
			if err != nil {
				e.leave(st, err)
				continue
			}
			cond := truth(c)
			e.run(st.body, and(pc, and(not(taken), cond)))
			taken = or(taken, cond)
		case st.text == "else:":
			e.run(st.body, and(pc, not(taken)))
			taken = ""
		default:
			e.statement(st, pc)
		}
	}
}

// statement executes one simple statement under pc.
func (e *hookEffects) statement(st hookStmt, pc string) {
	if g := fieldStmt.FindStringSubmatch(st.text); g != nil {
		f, ok := hookFields[g[2]]
		if !ok {
			e.leave(st, fmt.Errorf("%q is not a field the incumbent sends (the hook's change has no effect there either)", g[2]))
			return
		}
		v, err := e.sc.translate(g[3])
		if err == nil && v.typ != "string" {
			err = fmt.Errorf("sets a field to a %s, not a text", v.typ)
		}
		if err != nil {
			e.leave(st, err)
			return
		}
		old, _ := e.sc.field(g[2])
		e.fields[f] = choose(pc, v, old)
		return
	}
	if g := addStmt.FindStringSubmatch(st.text); g != nil {
		v, err := e.sc.translate(g[2])
		if want := map[string]string{"add": "string", "update": "list"}[g[1]]; err == nil && v.typ != want {
			err = fmt.Errorf("adds a %s, not a group name", v.typ)
		}
		if err != nil {
			e.leave(st, err)
			return
		}
		list, ok := e.knownOnly(st, g[1], v)
		if !ok {
			return
		}
		if pc != "" {
			list = "(" + pc + " ? " + list + " : [])"
		}
		e.groups = append(e.groups, list)
		return
	}
	switch {
	case st.text == "pass":
	case logStmt.MatchString(st.text):
		e.notes = append(e.notes, fmt.Sprintf("line %d: %s: logging; orgsync's plan --explain USER shows how each user's groups and fields came about", st.line, st.text))
	case dropStmt.MatchString(st.text):
		e.leave(st, fmt.Errorf("orgsync's groups expression adds groups; it cannot take away a group a mapping rule gives: change the rule, or leave the user out with a filter expression"))
	case assignStmt.MatchString(st.text):
		g := assignStmt.FindStringSubmatch(st.text)
		v, err := e.sc.translate(g[2])
		if err != nil {
			e.leave(st, err)
			return
		}
		old, ok := e.sc.vars[g[1]]
		if !ok {
			old = cel{`""`, v.typ}
		}
		e.sc.vars[g[1]] = choose(pc, v, old)
	default:
		e.leave(st, fmt.Errorf("not a statement migrate recognises"))
	}
}

// leave records a statement that has no proposal.
func (e *hookEffects) leave(st hookStmt, why error) {
	e.left = append(e.left, fmt.Sprintf("line %d: %s: %v", st.line, st.text, why))
}

// choose is v when pc holds, else old.
func choose(pc string, v, old cel) cel {
	if pc == "" {
		return v
	}
	return cel{"(" + pc + " ? " + v.text + " : " + old.text + ")", v.typ}
}

func and(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " && " + b
}

func or(a, b string) string {
	if a == "" {
		return b
	}
	return "(" + a + ") || (" + b + ")"
}

func not(a string) string {
	if a == "" {
		return ""
	}
	return "!(" + a + ")"
}
