package expr

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/source/diag"
)

// record builds a Record from field values by name and attributes.
func record(fields map[string]string, attrs map[string]string, groups ...string) *Record {
	r := &Record{Attributes: attrs, DirectoryGroups: groups}
	for name, v := range fields {
		f, ok := fieldNamed(name)
		if !ok {
			panic("no field " + name)
		}
		r.Fields[f] = v
	}
	return r
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  Config
		want []string // "key|part of the reason", one a problem
	}{
		{"filter must be a bool", Config{Filter: `user.country`}, []string{"filter|gives string, but bool is needed: write a condition"}},
		{"groups must be a list of strings", Config{Groups: `["a", 1]`}, []string{"groups|gives list(dyn)"}},
		{"groups not a list", Config{Groups: `"Design"`}, []string{`groups|gives string, but list(string) is needed: write a list of group names, e.g. user.attributes.department == "Design" ? ["Design"] : [] ([] for none)`}},
		{"set must be a string", Config{Set: map[string]string{"country": `1`}}, []string{"set.country|gives int, but string is needed: write a text value, e.g. user.attributes.displayName.split(\" \")[0]; string(...) converts a number"}},
		{"misspelt field", Config{Filter: `user.contry == "DE"`}, []string{"filter|user.contry is not a user field (did you mean user.country?): the fields are user.firstname, user.lastname, user.email, user.country, user.type, user.username, user.domain; an extra attribute is read as user.attributes.contry, all its values as user.attributeValues.contry"}},
		{"far from any field", Config{Filter: `user.department == "x"`}, []string{"filter|user.department is not a user field: the fields are"}},
		{"position", Config{Filter: "user.country == \"DE\" &&\n  user.attributes.x.nope()"}, []string{"filter|at line 2 column 25: undeclared reference to 'nope'"}},
		{"single =", Config{Filter: `user.country = "DE"`}, []string{"filter|at column 14: Syntax error: token recognition error at: '= '; at column 16: Syntax error: extraneous input '\"DE\"' expecting <EOF>; compare with =="}},
		{"too deep, no position", Config{Filter: strings.Repeat("[", 300) + strings.Repeat("]", 300) + " == []"}, []string{"filter|not a valid expression: expression recursion limit exceeded: 250"}},
		{"unknown variable", Config{Filter: `department == "x"`}, []string{"filter|the variables are user.<field>"}},
		{"type mismatch", Config{Filter: `user.country == 1`}, []string{"filter|no matching overload"}},
		{"ternary branches", Config{Groups: `user.attributes.department == "Design" ? "Design" : []`}, []string{`groups|at column 40: found no matching overload for '_?_:_' applied to '(bool, string, list(dyn))'; both branches of c ? a : b must give the same type`}},
		{"syntax", Config{Groups: `[`}, []string{"groups|Syntax error"}},
		{"unknown set field", Config{Set: map[string]string{"nickname": `"x"`}}, []string{`set.nickname|"nickname" is not a user field`}},
		{"blank", Config{Filter: "  "}, []string{"filter|empty expression"}},
		{"field set twice", Config{Set: map[string]string{"Country": `"DE"`, "country": `"FR"`}}, []string{"set.country|country is set twice"}},
		{"every problem at once", Config{Filter: `1`, Groups: `2`, Set: map[string]string{"email": `3`, "bogus": `""`}},
			[]string{"filter|gives int", "groups|gives int", "set.bogus|not a user field", "set.email|gives int"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Compile(tt.cfg)
			if p != nil || err == nil {
				t.Fatalf("Compile = %v, %v; want an error", p, err)
			}
			var fe diag.FieldErrors
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not FieldErrors", err)
			}
			if len(fe) != len(tt.want) {
				t.Fatalf("got %d problems (%v), want %d", len(fe), err, len(tt.want))
			}
			for i, w := range tt.want {
				key, part, _ := strings.Cut(w, "|")
				if fe[i].Field != key || !strings.Contains(fe[i].Reason, part) {
					t.Errorf("problem %d = %s: %s; want %s containing %q", i, fe[i].Field, fe[i].Reason, key, part)
				}
			}
		})
	}
}

func TestCompileEmptyIsNil(t *testing.T) {
	t.Parallel()
	p, err := Compile(Config{})
	if p != nil || err != nil {
		t.Fatalf("Compile(empty) = %v, %v; want nil, nil", p, err)
	}
	r := record(map[string]string{"email": "a@example.com"}, nil)
	out, err := p.Run(r)
	if err != nil || !out.Keep || out.Groups != nil || out.Set != [NumFields]bool{} {
		t.Fatalf("nil Program Run = %+v, %v; want keep and nothing else", out, err)
	}
}

func TestRun(t *testing.T) {
	t.Parallel()
	cfg := Config{
		Filter: `user.country != "CN" && !("contractors" in directoryGroups)`,
		Groups: `(user.attributes.department == "Design" ? ["Design", " design ", ""] : []) + (user.firstname == "Ann" ? ["Ann's"] : [])`,
		Set: map[string]string{
			"firstname": `user.attributes.displayName.split(" ")[0]`,
			"country":   `user.country != "" ? user.country : user.attributes.?c.orValue("US")`,
		},
	}
	p, err := Compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		r         *Record
		keep      bool
		groups    []string
		firstname string
		country   string
	}{
		{"design user, names computed", record(map[string]string{"firstname": "x"}, map[string]string{"department": "Design", "displayName": "Ann Lee", "c": "DE"}),
			true, []string{"Design", "Ann's"}, "Ann", "DE"},
		{"default country", record(nil, map[string]string{"department": "Sales", "displayName": "Bo"}), true, nil, "Bo", "US"},
		{"country kept", record(map[string]string{"country": "FR"}, map[string]string{"department": "Sales", "displayName": "Cy D"}), true, nil, "Cy", "FR"},
		{"filtered by country", record(map[string]string{"country": "CN"}, nil), false, nil, "", "CN"},
		{"filtered by group", record(nil, nil, "staff", "contractors"), false, nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := p.Run(tt.r)
			if err != nil {
				t.Fatal(err)
			}
			if out.Keep != tt.keep || !slices.Equal(out.Groups, tt.groups) {
				t.Errorf("Run = keep %v groups %q; want %v %q", out.Keep, out.Groups, tt.keep, tt.groups)
			}
			if got := tt.r.Fields[FirstName]; got != tt.firstname {
				t.Errorf("firstname = %q, want %q", got, tt.firstname)
			}
			if got := tt.r.Fields[Country]; got != tt.country {
				t.Errorf("country = %q, want %q", got, tt.country)
			}
			if tt.keep && (!out.Set[FirstName] || out.Set[Country] != (tt.r.Fields[Country] != "FR") || out.Set[Email]) {
				t.Errorf("Set = %v, want firstname, and country unless kept", out.Set)
			}
		})
	}
}

// TestSetSeesTheRecordAsRead checks that one set expression does not see
// another's result, and that groups sees them all.
func TestSetSeesTheRecordAsRead(t *testing.T) {
	t.Parallel()
	p, err := Compile(Config{
		Set:    map[string]string{"firstname": `user.lastname`, "lastname": `user.firstname`},
		Groups: `[user.firstname + "-" + user.lastname]`,
	})
	if err != nil {
		t.Fatal(err)
	}
	r := record(map[string]string{"firstname": "Ann", "lastname": "Lee"}, nil)
	out, err := p.Run(r)
	if err != nil {
		t.Fatal(err)
	}
	if r.Fields[FirstName] != "Lee" || r.Fields[LastName] != "Ann" || !slices.Equal(out.Groups, []string{"Lee-Ann"}) {
		t.Fatalf("got %q %q groups %q; want swapped names and group Lee-Ann", r.Fields[FirstName], r.Fields[LastName], out.Groups)
	}
}

// TestRuntimeErrors checks that an expression failing on a record is an
// *Error naming the expression, and leaves the record unchanged.
func TestRuntimeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  Config
		key  string
		want string
	}{
		{"missing attribute", Config{Filter: `user.attributes.department == "x"`}, "filter", "no such key: department (the record has: displayName, many)"},
		{"index out of range", Config{Set: map[string]string{"firstname": `user.attributes.displayName.split(" ")[3]`, "lastname": `"ok"`}}, "set.firstname", "index"},
		{"division by zero", Config{Groups: `[string(1 / size(user.email))]`}, "groups", "division by zero"},
		{"bad conversion", Config{Filter: `int(user.firstname) > 3`}, "filter", "conversion"},
		{"too many groups", Config{Groups: `user.attributes.many.split(",")`}, "groups", "more than the 1000"},
		{"dynamic filter of the wrong type", Config{Filter: `dyn(user.firstname)`}, "filter", "not a bool"},
		{"dynamic set of the wrong type", Config{Set: map[string]string{"country": `dyn(1)`}}, "set.country", "not a string"},
		{"set key in another letter case", Config{Set: map[string]string{"Country": `dyn(1)`}}, "set.country", "not a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Compile(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			r := record(map[string]string{"firstname": "Ann"}, map[string]string{"displayName": "Ann Lee", "many": strings.Repeat("g,", 1500)})
			before := r.Fields
			_, err = p.Run(r)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Run error = %v, want *Error", err)
			}
			if e.Key != tt.key || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), e.Expr) || e.Expr == "" {
				t.Errorf("error %s: %v; want key %s mentioning %q and the expression", e.Key, err, tt.key, tt.want)
			}
			if r.Fields != before {
				t.Errorf("record changed on error: %q", r.Fields)
			}
		})
	}
}

// TestHostileRecords checks the limits on what a record hands the
// expressions, and that a runaway expression is stopped.
func TestHostileRecords(t *testing.T) {
	t.Parallel()
	p, err := Compile(Config{Filter: `user.email != ""`})
	if err != nil {
		t.Fatal(err)
	}
	huge := strings.Repeat("x", MaxValueLen+1)
	many := map[string]string{}
	for i := 0; i <= MaxAttributes; i++ {
		many[strings.Repeat("k", i+1)] = "v"
	}
	groups := make([]string, MaxDirectoryGroups+1)
	for name, r := range map[string]*Record{
		"long field":      record(map[string]string{"email": huge}, nil),
		"long attribute":  record(nil, map[string]string{"a": huge}),
		"many attributes": record(nil, many),
		"long group":      record(nil, nil, huge),
		"many groups":     record(nil, nil, groups...),
	} {
		if _, err := p.Run(r); err == nil || !strings.Contains(err.Error(), "more than") {
			t.Errorf("%s: Run error = %v, want a limit", name, err)
		}
	}
	// Odd but valid values go through unharmed.
	odd := record(map[string]string{"email": "\x00\xff\u202e@x", "firstname": "💥"}, map[string]string{"": "", "\n": "\xff"}, "", "\x00")
	if out, err := p.Run(odd); err != nil || !out.Keep {
		t.Errorf("odd record: %+v, %v", out, err)
	}
}

func TestCostLimit(t *testing.T) {
	t.Parallel()
	// Quadratic in a list the record controls: CEL cannot bound it at
	// load, so it is counted and stopped on the record that makes it huge.
	p, err := Compile(Config{Filter: `directoryGroups.all(a, directoryGroups.all(b, directoryGroups.all(c, a + b + c != "")))`})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := p.Run(record(nil, nil, "a", "b")); err != nil || !out.Keep {
		t.Fatalf("small record: %+v, %v", out, err)
	}
	groups := make([]string, 500)
	for i := range groups {
		groups[i] = "g"
	}
	_, err = p.Run(record(nil, nil, groups...))
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "cost") {
		t.Fatalf("Run = %v, want the cost limit", err)
	}
}

// TestReusedRecord: a source that reuses its Record, attributes map and
// groups slice from record to record gets each record's values.
func TestReusedRecord(t *testing.T) {
	t.Parallel()
	p, err := Compile(Config{Groups: `[user.attributes.dept] + directoryGroups.map(g, g + "!") + (has(user.attributes.extra) ? ["extra"] : [])`})
	if err != nil {
		t.Fatal(err)
	}
	r := &Record{Attributes: map[string]string{}}
	for i, want := range [][]string{{"A", "x!"}, {"B", "y!", "z!"}, {"C", "y!", "extra"}, {"D"}} {
		groups := [][]string{{"x"}, {"y", "z"}, {"y"}, nil}[i]
		r.Attributes["dept"] = want[0]
		if i == 2 {
			r.Attributes["extra"] = ""
		}
		if i == 3 {
			r.Attributes = map[string]string{"dept": "D"}
		}
		r.DirectoryGroups = append(r.DirectoryGroups[:0], groups...)
		out, err := p.Run(r)
		if err != nil || !slices.Equal(out.Groups, want) {
			t.Errorf("record %d: %q, %v; want %q", i, out.Groups, err, want)
		}
	}
}

// TestWithScope: a scoped program leaves out the records in none of the
// scope groups (matched by name, or by a DN's first value, letter case
// ignored) before its filter runs, and leaves the program it wraps as it was.
func TestWithScope(t *testing.T) {
	t.Parallel()
	p, err := Compile(Config{Filter: `user.country != "CN"`})
	if err != nil {
		t.Fatal(err)
	}
	scoped := p.WithScope([]string{"Design", "eng"})
	for _, tt := range []struct {
		groups     []string
		country    string
		keep, out  bool
		unscopedOK bool
	}{
		{[]string{"design"}, "DE", true, false, true},
		{[]string{"sales", "cn=ENG,ou=groups,dc=example,dc=com"}, "DE", true, false, true},
		{[]string{"sales"}, "DE", false, true, true},
		{nil, "DE", false, true, true},
		{[]string{"eng"}, "CN", false, false, false},
	} {
		r := record(map[string]string{"country": tt.country}, nil, tt.groups...)
		out, err := scoped.Run(r)
		if err != nil || out.Keep != tt.keep || out.OutOfScope != tt.out {
			t.Errorf("groups %q country %s: %+v, %v; want keep %v, out of scope %v", tt.groups, tt.country, out, err, tt.keep, tt.out)
		}
		if out, _ := p.Run(r); out.Keep != tt.unscopedOK {
			t.Errorf("the unscoped program changed: groups %q keep %v", tt.groups, out.Keep)
		}
	}
	var none *Program
	if none.WithScope(nil) != nil {
		t.Error("no program and no scope must stay nil")
	}
	if all := p.WithScope(nil); all == p || all.filter != p.filter {
		t.Error("WithScope without groups must return a copy of the program")
	}
	if out, _ := none.WithScope([]string{"x"}).Run(record(nil, nil, "y")); out.Keep || !out.OutOfScope {
		t.Errorf("a scope without expressions keeps a record outside it: %+v", out)
	}
}

// TestMissingAttributeOfARecordWithNone: the error says the record has no
// attributes at all.
func TestMissingAttributeOfARecordWithNone(t *testing.T) {
	t.Parallel()
	p, err := Compile(Config{Groups: `[user.attributes["dept"]]`})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(record(nil, nil)); err == nil || !strings.HasSuffix(err.Error(), "no such key: dept (the record has no attributes)") {
		t.Errorf("Run = %v", err)
	}
}

// TestLetterCase: upper() and lower() change every letter, as Unicode
// says; upperAscii() and lowerAscii() only the ASCII ones.
func TestLetterCase(t *testing.T) {
	t.Parallel()
	p, err := Compile(Config{Set: map[string]string{
		"firstname": `user.firstname.upper()`, "lastname": `user.lastname.lower()`,
		"country": `user.firstname.upperAscii()`,
	}})
	if err != nil {
		t.Fatal(err)
	}
	r := record(map[string]string{"firstname": "Zoë", "lastname": "ÇELIK Øster"}, nil)
	if _, err := p.Run(r); err != nil {
		t.Fatal(err)
	}
	if got := [3]string{r.Fields[FirstName], r.Fields[LastName], r.Fields[Country]}; got != [3]string{"ZOË", "çelik øster", "ZOë"} {
		t.Errorf("upper, lower, upperAscii = %q", got)
	}
}
