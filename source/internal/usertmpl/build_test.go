package usertmpl_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/internal/usertmpl"
)

// TestBuildAllIsBuildInOrder: building records at once on several
// goroutines gives the same result as building them one by one: the same
// users, problems and records left out, in the same order, whatever the
// number of workers, with the explained user's trace (its computed
// values its own).
func TestBuildAllIsBuildInOrder(t *testing.T) {
	t.Parallel()
	fields, err := usertmpl.Parse(usertmpl.Spec{Templates: source.Templates{Email: "{mail}", FirstName: "{given}", LastName: "{sur}", Country: "{c}"}}, usertmpl.Spec{}, "users.")
	if err != nil {
		t.Fatal(err)
	}
	p, err := expr.Compile(expr.Config{Filter: `size(directoryGroups) != 2`, Groups: `user.attributes.dept == "R&D" ? ["Lab"] : []`,
		Set: map[string]string{"lastname": `user.lastname.upperAscii()`}})
	if err != nil {
		t.Fatal(err)
	}
	type rec struct {
		id             string
		attrs          map[string]string
		targets, names []string
	}
	var recs []rec
	for i := range 200 {
		mail := fmt.Sprintf("u%d@example.com", i)
		if i%17 == 0 {
			mail = "not an email"
		}
		if i%23 == 0 {
			mail = "u1@example.com" // a duplicate
		}
		recs = append(recs, rec{id: fmt.Sprint("id", i), attrs: map[string]string{"mail": mail, "given": "G", "sur": fmt.Sprint("s", i),
			"c": []string{"US", "DE", "XX"}[i%3], "dept": []string{"R&D", "Sales"}[i%2]},
			targets: []string{fmt.Sprint("T", i%4)}, names: make([]string, i%3)})
	}
	x := usertmpl.Expressions{Program: p, ExtraAttributes: []string{"dept"}, Explain: "u4@example.com"}
	one := usertmpl.NewCollector("src", "here", &fields)
	one.Run(x)
	for _, r := range recs {
		one.Build(r.id, attrs(r.attrs), r.targets, r.names)
	}
	for _, workers := range []int{1, 2, 7, 500} {
		all := usertmpl.NewCollector("src", "here", &fields)
		all.Run(x)
		all.BuildAll(len(recs), workers, func(i int) (string, usertmpl.Attributes, []string, []string) {
			r := recs[i]
			return r.id, attrs(r.attrs), r.targets, r.names
		})
		if want, got := one.Result(), all.Result(); !reflect.DeepEqual(got, want) || all.LeftByFilter() != one.LeftByFilter() {
			t.Errorf("%d workers: %d users, %d problems, %d left out; one by one: %d, %d, %d", workers,
				got.Users.Len(), len(got.Problems), all.LeftByFilter(), want.Users.Len(), len(want.Problems), one.LeftByFilter())
		}
	}
	if res := one.Result(); res.Users.Len() == 0 || len(res.Problems) == 0 || one.LeftByFilter() == 0 {
		t.Fatalf("the records do not exercise users, problems and the filter: %d, %d, %d", res.Users.Len(), len(res.Problems), one.LeftByFilter())
	}
	if tr := one.Result().Traces; len(tr) != 1 || tr[0].Record != "id4" || tr[0].Set["lastname"] != "S4" {
		t.Errorf("traces %+v, want u4's with its computed last name", tr)
	}
}

// attrs are a record's attributes, each with one value.
type attrs map[string]string

func (a attrs) Get(name string) string      { return a[name] }
func (a attrs) Values(name string) []string { return nil }

// multiAttrs are a record's attributes with several values each.
type multiAttrs map[string][]string

func (a multiAttrs) Get(name string) string {
	if vs := a[name]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}
func (a multiAttrs) Values(name string) []string { return a[name] }

// TestBuildGivesAttributeValues: the expressions see every value of each
// extra attribute in user.attributeValues (trimmed, empty ones left
// out), its first in user.attributes; one record's values never leak
// into the next's, one by one or at once.
func TestBuildGivesAttributeValues(t *testing.T) {
	t.Parallel()
	fields, err := usertmpl.Parse(usertmpl.Spec{Templates: source.Templates{Email: "{mail}"}}, usertmpl.Spec{}, "users.")
	if err != nil {
		t.Fatal(err)
	}
	p, err := expr.Compile(expr.Config{Groups: `user.attributeValues.proj.map(p, "P " + p) + [user.attributes.proj + "!"] + user.attributeValues.site`})
	if err != nil {
		t.Fatal(err)
	}
	recs := []multiAttrs{
		{"mail": {"a@example.com"}, "proj": {" apollo ", "", "gemini, the sequel"}, "site": {"Berlin"}},
		{"mail": {"b@example.com"}, "proj": {"x"}},
		{"mail": {"c@example.com"}},
	}
	want := map[string][]string{"a@example.com": {"P apollo", "P gemini, the sequel", "apollo!", "Berlin"}, "b@example.com": {"P x", "x!"}, "c@example.com": {"!"}}
	x := usertmpl.Expressions{Program: p, ExtraAttributes: []string{"proj", "site"}}
	for _, workers := range []int{0, 2} {
		c := usertmpl.NewCollector("src", "here", &fields)
		c.Run(x)
		if workers == 0 {
			for i, r := range recs {
				c.Build(fmt.Sprint(i), r, nil, nil)
			}
		} else {
			c.BuildAll(len(recs), workers, func(i int) (string, usertmpl.Attributes, []string, []string) { return fmt.Sprint(i), recs[i], nil, nil })
		}
		res := c.Result()
		if res.Users.Len() != 3 || len(res.Problems) != 0 {
			t.Fatalf("%d workers: %+v", workers, res)
		}
		for _, u := range res.Users.All() {
			if !slices.Equal(u.Groups, want[u.Email]) {
				t.Errorf("%d workers: %s: %q, want %q", workers, u.Email, u.Groups, want[u.Email])
			}
		}
	}
}
