package migrate

import (
	"strings"
	"testing"

	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/mapping"
)

// hookEffectsOf translates a hook for a CSV source knowing the groups
// known.
func hookEffectsOf(t testing.TB, code string, known ...string) *hookEffects {
	m := &migration{}
	e := &hookEffects{fields: map[string]cel{}, known: known}
	e.sc = m.hookScope(&source{kind: "csv"}, e)
	stmts, err := parseHook(code, 1)
	if err != nil {
		e.left = append(e.left, err.Error())
		return e
	}
	e.run(stmts, "")
	return e
}

// compiles reports whether the expressions of e compile as a source's.
func compiles(t testing.TB, e *hookEffects) error {
	c := expr.Config{Groups: strings.Join(e.groups, " + "), Set: map[string]string{}}
	for f, v := range e.fields {
		c.Set[f] = v.text
	}
	_, err := expr.Compile(c)
	return err
}

// TestHookPatterns checks the common patterns of an after_mapping_hook:
// a group from an attribute, a field rewritten, conditions, and what is
// left to the administrator.
func TestHookPatterns(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, code string
		groups     string // the groups expression, "" for none
		set        map[string]string
		left       string // a statement left, "" for none
	}{
		{name: "group from an attribute", code: "if source_attributes.get('department') == 'Design':\n    target_groups.add('Design')",
			groups: `((user.attributes.?department.orValue("") == "Design") ? ["Design"] : [])`},
		{name: "membership test", code: "if 'contractors' in source_groups:\n    target_groups.add('Design')\nelse:\n    pass",
			groups: `(("contractors" in directoryGroups) ? ["Design"] : [])`},
		{name: "rewrite a field", code: "target_attributes['email'] = target_attributes['email'].lower()\ntarget_attributes['country'] = 'US'",
			set: map[string]string{"email": "user.email.lower()", "country": `"US"`}},
		{name: "name from another attribute", code: "nick = source_attributes['nickname']\nif nick:\n    target_attributes['firstname'] = nick.strip()",
			set: map[string]string{"firstname": `(user.attributes.?nickname.orValue("") != "" ? user.attributes.?nickname.orValue("").trim() : user.firstname)`}},
		{name: "unknown group", code: "target_groups.add('Nowhere')", left: ""},
		{name: "group taken away", code: "target_groups.discard('Design')", left: "cannot take away"},
		{name: "a loop", code: "for g in source_groups:\n    target_groups.add(g)", left: "not a statement migrate recognises"},
		{name: "logging", code: "logger.info('hello')\ntarget_groups.add('Design')", groups: `["Design"]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := hookEffectsOf(t, c.code, "Design")
			if got := strings.Join(e.groups, " + "); got != c.groups {
				t.Errorf("groups\n got %s\nwant %s", got, c.groups)
			}
			for f, want := range c.set {
				if got := e.fields[f].text; got != want {
					t.Errorf("set.%s\n got %s\nwant %s", f, got, want)
				}
			}
			if left := strings.Join(e.left, "\n"); c.left == "" && left != "" || !strings.Contains(left, c.left) {
				t.Errorf("left %q, want %q", left, c.left)
			}
			if len(e.left) == 0 {
				if err := compiles(t, e); err != nil {
					t.Errorf("the expressions do not compile: %v", err)
				}
			}
		})
	}
}

// TestHookPartlyCovered checks that a hook migrate covers only in part
// gets its proposals commented out, with what is left in the report.
func TestHookPartlyCovered(t *testing.T) {
	t.Parallel()
	main := mainWith("") + "invocation_defaults:\n  process_groups: Yes\n"
	main = strings.Replace(main, "  groups:", "  extension: extension-config.yml\n  groups:", 1)
	ext := "extended_adobe_groups: [Design]\nafter_mapping_hook: |\n  if source_attributes.get('dept') == 'Design':\n    target_groups.add('Design')\n  target_groups.discard('All Apps')\n"
	res, cfg := migrateFiles(t, map[string]string{"user-sync-config.yml": main, "extension-config.yml": ext}, "--connector", "csv", "users.csv")
	if cfg == nil || cfg.Sources[0].Groups != "" {
		t.Fatalf("a partly covered hook's expression is in force:\n%s", res.Config)
	}
	h := res.Report.Hook
	if h.Applied || len(h.Left) != 1 || !strings.Contains(string(res.Config), "# groups: '((user.attributes.?dept") {
		t.Errorf("hook report %+v\n%s", h, res.Config)
	}
	if !strings.Contains(reportText(res.Report), "    | target_groups.discard('All Apps')") {
		t.Errorf("the report does not quote the hook")
	}
}

// FuzzHook checks that no hook text makes migrate fail, and that what it
// puts in force (a hook it covers whole) always compiles.
func FuzzHook(f *testing.F) {
	for _, seed := range []string{
		"bc = source_attributes.get('bc')\nif bc is not None:\n  target_attributes['country'] = bc[0:2]",
		"if x == 'a' and not y or z:\n  target_groups.add('G')\nelif 'q' in source_groups:\n  target_groups.update(['G', 'H'])",
		"target_attributes['email'] = source_attributes['mail'].lower() + '@x'",
		"if (a:\n", "  x = 'unterminated", "target_groups.add(source_attributes.get('g', 'dflt')[1:])",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, code string) {
		e := hookEffectsOf(t, code, "G", "H")
		if len(e.left) == 0 && (len(e.groups) > 0 || len(e.fields) > 0) {
			if err := compiles(t, e); err != nil {
				t.Fatalf("%q: in force but does not compile: %v", code, err)
			}
		}
	})
}

// TestPythonRegexp checks the translation of the incumbent's regular
// expressions and replacements.
func TestPythonRegexp(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ py, goRe, err string }{
		{`freelancer-[0-9]+.*`, `freelancer-[0-9]+.*`, ""},
		{`(?P<dept>\w+)-ACL\Z`, `(?P<dept>\w+)-ACL\z`, ""},
		{`a{,3}`, `a{0,3}`, ""},
		{`(?=x)y`, "", "lookahead"},
		{`(a)\1`, "", "backreference"},
		{`[`, "", "not valid"},
	} {
		got, err := pythonRegexp(c.py)
		if got != c.goRe || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: %q, %v; want %q, %q", c.py, got, err, c.goRe, c.err)
		}
	}
	for _, c := range []struct{ py, want string }{
		{`ACL-Grp-\1`, "ACL-Grp-${1}"}, {`\g<dept> Users`, "${dept} Users"}, {`Cost $\g<1>`, "Cost $$${1}"}, {`a\\b`, `a\b`},
	} {
		if got, err := pythonRepl(c.py); got != c.want || err != nil {
			t.Errorf("%q: %q, %v; want %q", c.py, got, err, c.want)
		}
	}
}

// FuzzPythonRegexp checks that any incumbent expression either
// translates into one Go compiles or is refused with a reason.
func FuzzPythonRegexp(f *testing.F) {
	for _, s := range []string{`ACL-(.+)`, `(.+)-ACL`, `\Z`, `(?P<n>x)`, `a{,2}`} {
		f.Add(s, `ACL-\1`)
	}
	f.Fuzz(func(t *testing.T, source, target string) {
		pattern, _, _, err := additionalRule(source, target)
		if err == nil {
			if _, cerr := compileAnchored(pattern); cerr != nil {
				t.Fatalf("%q became %q, which does not compile: %v", source, pattern, cerr)
			}
		}
	})
}

// TestSplitGroupFilter checks the splitting of group_filter_format.
func TestSplitGroupFilter(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ format, filter, attr string }{
		{ustGroupFormat, "(|(objectCategory=group)(objectClass=groupOfNames)(objectClass=posixGroup))", "cn"},
		{"(&(objectClass=group)(sAMAccountName={group}))", "(objectClass=group)", "sAMAccountName"},
		{"(&(objectClass=groupOfNames)(ou=x)(cn={group}))", "(&(objectClass=groupOfNames)(ou=x))", "cn"},
		{"(cn={group})", "(objectClass=*)", "cn"},
		{"(|(cn={group})(description=*{group}*))", "", ""},
	} {
		f, a, ok := splitGroupFilter(c.format)
		if f != c.filter || a != c.attr || ok != (c.filter != "") {
			t.Errorf("%q: %q %q %v", c.format, f, a, ok)
		}
	}
}

// compileAnchored compiles a pattern rule as orgsync's mapping does.
func compileAnchored(pattern string) (*mapping.Mapper, error) {
	return mapping.New([]mapping.Rule{{Pattern: pattern, Targets: []string{"x"}}})
}

// TestHookUpperIsUnicode: Python's upper() becomes upper(), which, as
// Python's, changes every letter ("Zoë" becomes "ZOË", not "ZOë").
func TestHookUpperIsUnicode(t *testing.T) {
	t.Parallel()
	main := strings.Replace(mainWith(""), "  groups:", "  extension: extension-config.yml\n  groups:", 1)
	ext := "after_mapping_hook: |\n  target_attributes['firstname'] = source_attributes['firstname'].upper()\n"
	res, cfg := migrateFiles(t, map[string]string{"user-sync-config.yml": main, "extension-config.yml": ext}, "--connector", "csv", "users.csv")
	if cfg == nil || !strings.Contains(string(res.Config), "user.firstname.upper()") {
		t.Errorf("the hook's upper() is not upper():\n%s", res.Config)
	}
}

// TestHookReadsARenamedColumn: a hook reading the column a CSV
// connector renamed (first_name_column_name: given) reads the user's
// field, as the incumbent's hook sees the column.
func TestHookReadsARenamedColumn(t *testing.T) {
	t.Parallel()
	main := strings.Replace(mainWith(""), "  groups:", "  connectors:\n    csv: connector-csv.yml\n  extension: extension-config.yml\n  groups:", 1)
	ext := "after_mapping_hook: |\n  target_attributes['firstname'] = source_attributes['given'].strip()\n"
	res, cfg := migrateFiles(t, map[string]string{"user-sync-config.yml": main, "extension-config.yml": ext, "connector-csv.yml": "first_name_column_name: given\n"},
		"--connector", "csv", "users.csv")
	if cfg == nil || !strings.Contains(string(res.Config), "user.firstname.trim()") || strings.Contains(string(res.Config), "user.attributes.given") {
		t.Errorf("the hook does not read the renamed column as the field:\n%s\n%s", res.Config, reportText(res.Report))
	}
}
