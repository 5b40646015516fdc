package usertmpl_test

import (
	"fmt"
	"reflect"
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
		one.Build(r.id, func(a string) string { return r.attrs[a] }, r.targets, r.names)
	}
	for _, workers := range []int{1, 2, 7, 500} {
		all := usertmpl.NewCollector("src", "here", &fields)
		all.Run(x)
		all.BuildAll(len(recs), workers, func(i int) (string, func(string) string, []string, []string) {
			r := recs[i]
			return r.id, func(a string) string { return r.attrs[a] }, r.targets, r.names
		})
		if want, got := one.Result(), all.Result(); !reflect.DeepEqual(got, want) || all.LeftByFilter() != one.LeftByFilter() {
			t.Errorf("%d workers: %d users, %d problems, %d left out; one by one: %d, %d, %d", workers,
				len(got.Users), len(got.Problems), all.LeftByFilter(), len(want.Users), len(want.Problems), one.LeftByFilter())
		}
	}
	if res := one.Result(); len(res.Users) == 0 || len(res.Problems) == 0 || one.LeftByFilter() == 0 {
		t.Fatalf("the records do not exercise users, problems and the filter: %d, %d, %d", len(res.Users), len(res.Problems), one.LeftByFilter())
	}
	if tr := one.Result().Traces; len(tr) != 1 || tr[0].Record != "id4" || tr[0].Set["lastname"] != "S4" {
		t.Errorf("traces %+v, want u4's with its computed last name", tr)
	}
}
