package expr

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/cel-go/common/types"

	"github.com/orgsync/orgsync/source/diag"
)

// valuesRecord is a record with a multi-valued attribute (projects, one
// of its values with a comma inside), a single-valued one, an empty one
// and a number.
func valuesRecord() *Record {
	r := record(map[string]string{"email": "ann@example.com"},
		map[string]string{"projects": "apollo,gemini, the sequel", "dept": "Design", "none": "", "grade": "7", "ratio": "0.75"})
	r.Values = map[string][]string{"projects": {"apollo", "gemini, the sequel"}}
	return r
}

// TestAttributeValues: user.attributeValues gives each attribute's values
// as a list (all of a multi-valued one, one of a single value, none of an
// empty one), with the keys of user.attributes, usable by every list
// and map operation; user.attributes stays as it was.
func TestAttributeValues(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		cfg    Config
		groups []string // nil: the filter must keep the record
	}{
		{Config{Groups: `user.attributeValues.projects`}, []string{"apollo", "gemini, the sequel"}},
		{Config{Groups: `user.attributeValues["projects"].map(p, "Project " + p)`}, []string{"Project apollo", "Project gemini, the sequel"}},
		{Config{Groups: `user.attributeValues.projects.exists(p, p == "gemini, the sequel") ? ["Gemini"] : []`}, []string{"Gemini"}},
		{Config{Groups: `user.attributeValues.dept`}, []string{"Design"}},
		{Config{Groups: `user.attributes.projects.split(",")`}, []string{"apollo", "gemini", "the sequel"}},
		{Config{Filter: `size(user.attributeValues.none) == 0 && size(user.attributeValues.projects) == 2 && size(user.attributeValues) == 5`}, nil},
		{Config{Filter: `"apollo" in user.attributeValues.projects && !("gemini" in user.attributeValues.projects)`}, nil},
		{Config{Filter: `int(user.attributeValues.grade[0]) >= 7 && double(user.attributeValues.ratio[0]) < 1.0`}, nil},
		{Config{Filter: `"dept" in user.attributeValues && !("nope" in user.attributeValues) && has(user.attributeValues.dept)`}, nil},
		{Config{Filter: `user.attributeValues.?nope.orValue(["x"]) == ["x"] && user.attributeValues.?dept.orValue([]) == ["Design"]`}, nil},
		{Config{Filter: `user.attributeValues.all(k, k in user.attributes) && user.attributeValues.exists(k, size(user.attributeValues[k]) == 2)`}, nil},
		{Config{Filter: `user.attributeValues.filter(k, size(user.attributeValues[k]) > 0).size() == 4`}, nil},
		{Config{Filter: `user.attributeValues == {"projects": ["apollo", "gemini, the sequel"], "dept": ["Design"], "none": [], "grade": ["7"], "ratio": ["0.75"]}`}, nil},
		{Config{Filter: `user.attributeValues != {"dept": ["Design"]} && dyn(user.attributeValues) != 1`}, nil},
		{Config{Filter: `type(user.attributeValues) == map && "%s".format([user.attributeValues.projects]) == "[apollo, gemini, the sequel]"`}, nil},
		{Config{Set: map[string]string{"firstname": `user.attributeValues.projects.join(" + ")`}}, nil},
	} {
		p, err := Compile(tt.cfg)
		if err != nil {
			t.Fatalf("%+v: %v", tt.cfg, err)
		}
		if p.ReadsValues() != strings.Contains(fmt.Sprint(tt.cfg), "attributeValues") {
			t.Errorf("%+v: ReadsValues is %v", tt.cfg, p.ReadsValues())
		}
		r := valuesRecord()
		out, err := p.Run(r)
		if err != nil || !out.Keep || tt.groups != nil && !slices.Equal(out.Groups, tt.groups) {
			t.Errorf("%+v: %+v, %v; want kept with groups %q", tt.cfg, out, err, tt.groups)
		}
		if tt.cfg.Set != nil && r.Fields[FirstName] != "apollo + gemini, the sequel" {
			t.Errorf("set: %q", r.Fields[FirstName])
		}
	}
}

// TestAttributeValuesErrors: reading a value that is not there fails on
// the record, naming the attributes it has, as user.attributes does; a
// conversion of text that is not a number fails too.
func TestAttributeValuesErrors(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		`user.attributeValues.projet[0] == "apollo"`: "no such key: projet (the record has: dept, grade, none, projects, ratio)",
		`user.attributeValues.none[0] == ""`:         "index out of bounds",
		`int(user.attributeValues.ratio[0]) > 0`:     "conversion",
		`int(user.attributeValues.dept[0]) > 0`:      "conversion",
	} {
		p, err := Compile(Config{Filter: text})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Run(valuesRecord())
		var e *Error
		if !errors.As(err, &e) || e.Key != "filter" || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", text, err, want)
		}
	}
}

// TestAttributeValuesAtLoad: a misspelt variable, and a list compared
// as a string, fail when the configuration is loaded.
func TestAttributeValuesAtLoad(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		`user.attributeValue.projects.exists(p, p == "x")`: "user.attributeValue is not a user field (did you mean user.attributeValues?): the fields are user.firstname",
		`user.attributesValues["projects"].size() > 0`:     "user.attributesValues is not a user field (did you mean user.attributeValues?)",
		`user.attributeValues.projects == "apollo"`:        "no matching overload for '_==_' applied to '(list(string), string)'",
		`user.attributeValues.projects.exists(p, p == 1)`:  "no matching overload",
	} {
		_, err := Compile(Config{Filter: text})
		var fe diag.FieldErrors
		if !errors.As(err, &fe) || len(fe) != 1 || fe[0].Field != "filter" || !strings.Contains(fe[0].Reason, want) {
			t.Errorf("%s: %v, want a filter problem containing %q", text, err, want)
		}
	}
	p, err := Compile(Config{Filter: `user.attributes.dept == "Design"`, Groups: `["x"]`})
	if err != nil || p.ReadsValues() {
		t.Errorf("a program that reads no values: ReadsValues %v, %v", p.ReadsValues(), err)
	}
	var none *Program
	if none.ReadsValues() {
		t.Error("no program reads values")
	}
}

// TestAttributeValuesLimits: when the expressions read
// user.attributeValues, MaxAttributes counts every value of every
// attribute, and each value is bounded by MaxValueLen; when they do not,
// the values are neither counted nor checked.
func TestAttributeValuesLimits(t *testing.T) {
	t.Parallel()
	values, plain := mustCompile(t, Config{Filter: `size(user.attributeValues) >= 0`}), mustCompile(t, Config{Filter: `size(user.attributes) >= 0`})
	many := valuesRecord()
	many.Values["projects"] = make([]string, MaxAttributes-2) // with the 3 other values: one over
	long := valuesRecord()
	long.Values["projects"] = []string{"a", strings.Repeat("x", MaxValueLen+1)}
	for name, tt := range map[string]struct {
		r    *Record
		want string
	}{
		"too many values": {many, fmt.Sprintf("the record's extra attributes have %d values (projects has %d), more than the %d expressions accept", MaxAttributes+1, MaxAttributes-2, MaxAttributes)},
		"a long value":    {long, "a value of attribute projects is 65537 bytes long, more than the 65536 expressions accept"},
	} {
		if _, err := values.Run(tt.r); err == nil || err.Error() != tt.want {
			t.Errorf("%s: %v, want %q", name, err, tt.want)
		}
		if out, err := plain.Run(tt.r); err != nil || !out.Keep {
			t.Errorf("%s without user.attributeValues: %+v, %v; want kept", name, out, err)
		}
	}
	atLimit := valuesRecord()
	atLimit.Values["projects"] = make([]string, MaxAttributes-3)
	if out, err := values.Run(atLimit); err != nil || !out.Keep {
		t.Errorf("at the limit: %+v, %v", out, err)
	}
}

// TestAttributeValuesCost: a loop over one attribute's values is bounded
// at load (it runs uncounted); a loop nested in a loop over every value
// is counted and stopped quickly on the largest record allowed.
func TestAttributeValuesCost(t *testing.T) {
	t.Parallel()
	p := mustCompile(t, Config{Filter: `user.attributeValues.projects.exists(v, v.startsWith("ap"))`})
	if p.filter.counted {
		t.Error("a loop over one attribute's values is counted")
	}
	p = mustCompile(t, Config{Filter: `user.attributeValues.all(k, user.attributeValues[k].all(a, user.attributeValues[k].all(b, a + b != "")))`})
	r := valuesRecord()
	r.Values["projects"] = slices.Repeat([]string{strings.Repeat("p", 1000)}, MaxAttributes-3)
	start := time.Now()
	_, err := p.Run(r)
	if err == nil || !strings.Contains(err.Error(), "over the limits") {
		t.Errorf("Run = %v, want stopped over the limits", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v to stop", d)
	}
}

// TestAttributeValuesReused: a source that reuses its Record and maps
// from record to record gets each record's values.
func TestAttributeValuesReused(t *testing.T) {
	t.Parallel()
	p := mustCompile(t, Config{Groups: `user.attributeValues.p`})
	r := &Record{Attributes: map[string]string{}, Values: map[string][]string{}}
	for i, want := range [][]string{{"a", "b"}, {"c"}, nil, {"d", "e", "f"}} {
		r.Attributes["p"] = strings.Join(want, ",")
		clear(r.Values)
		if len(want) > 1 {
			r.Values["p"] = want
		}
		out, err := p.Run(r)
		if err != nil || !slices.Equal(out.Groups, want) {
			t.Errorf("record %d: %q, %v; want %q", i, out.Groups, err, want)
		}
	}
}

// TestAttributeValuesAsGo: the map converts to Go values and compares
// with another map as CEL maps do.
func TestAttributeValuesAsGo(t *testing.T) {
	t.Parallel()
	m := attributeValues{valuesRecord()}
	want := map[string][]string{"projects": {"apollo", "gemini, the sequel"}, "dept": {"Design"}, "none": nil, "grade": {"7"}, "ratio": {"0.75"}}
	if got, err := m.ConvertToNative(reflect.TypeFor[map[string][]string]()); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ConvertToNative = %v, %v", got, err)
	}
	if got, err := m.ConvertToNative(reflect.TypeFor[map[string]any]()); err != nil || len(got.(map[string]any)) != 5 {
		t.Errorf("ConvertToNative(map[string]any) = %v, %v", got, err)
	}
	if !reflect.DeepEqual(m.Value(), want) || m.ConvertToType(types.MapType) != m || m.ConvertToType(types.TypeType) != types.MapType ||
		!types.IsError(m.ConvertToType(types.StringType)) || !types.IsError(m.Get(types.Int(1))) {
		t.Error("Value, ConvertToType or Get of a key of the wrong type")
	}
	if m.Equal(types.DefaultTypeAdapter.NativeToValue(want)) != types.True || m.Equal(types.String("x")) != types.False {
		t.Error("Equal")
	}
}

func mustCompile(t *testing.T, c Config) *Program {
	t.Helper()
	p, err := Compile(c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
