package source

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/reconcile"
)

func TestMerge(t *testing.T) {
	fed := reconcile.FederatedID
	ldap := NamedResult{Name: "sources[0] (ldap)", Result: &Result{
		Users: []reconcile.User{
			{Type: fed, Email: "ann@example.com", FirstName: "Ann", Groups: []string{"Design", "All"}},
			{Type: fed, Email: "bob@example.com", LastName: "Ray", Country: "US"},
			{Type: fed, Username: "jdoe", Domain: "corp.example.com", FirstName: "J"},
		},
		Problems: []Problem{{Source: "sources[0] (ldap)", Reason: "bad entry"}},
	}}
	csv := NamedResult{Name: "sources[1] (csv)", Result: &Result{
		Users: []reconcile.User{
			{Type: fed, Email: "ANN@example.com", FirstName: "Anne", LastName: "Lee", Groups: []string{"design", "Eng"}},
			{Type: reconcile.EnterpriseID, Email: "bob@example.com", LastName: "Ray", Country: "DE"},
			{Type: fed, Email: "cy@example.com"},
			{Type: fed, Username: "JDOE", Domain: "CORP.example.com", Email: "jd@example.com"},
		},
	}}
	users, problems := Merge([]NamedResult{ldap, {Name: "empty"}, csv})
	want := []reconcile.User{
		{Type: fed, Email: "ann@example.com", FirstName: "Ann", LastName: "Lee", Groups: []string{"Design", "All", "Eng"}},
		{Type: fed, Email: "bob@example.com", LastName: "Ray", Country: "US"},
		{Type: fed, Username: "jdoe", Domain: "corp.example.com", FirstName: "J", Email: "jd@example.com"},
		{Type: fed, Email: "cy@example.com"},
	}
	if !reflect.DeepEqual(users, want) {
		t.Fatalf("users\n got %+v\nwant %+v", users, want)
	}
	wantProblems := []string{
		"sources[0] (ldap): bad entry",
		`sources[1] (csv) ann@example.com: firstname: sources[0] (ldap) has "Ann" but sources[1] (csv) has "Anne"; the value of sources[0] (ldap), the earlier source, is kept`,
		`sources[1] (csv) bob@example.com: type: sources[0] (ldap) has "federatedID" but sources[1] (csv) has "enterpriseID"`,
		`sources[1] (csv) bob@example.com: country: sources[0] (ldap) has "US" but sources[1] (csv) has "DE"`,
	}
	if len(problems) != len(wantProblems) {
		t.Fatalf("problems = %v", problems)
	}
	for i, w := range wantProblems {
		if !strings.HasPrefix(problems[i].String(), w) {
			t.Errorf("problem %d = %q, want prefix %q", i, problems[i].String(), w)
		}
	}
	if got := ldap.Result.Users[0].Groups; !reflect.DeepEqual(got, []string{"Design", "All"}) || ldap.Result.Users[0].LastName != "" {
		t.Errorf("Merge changed its input: %+v", ldap.Result.Users[0])
	}
}

func TestMergeOrderMatters(t *testing.T) {
	a := NamedResult{Name: "a", Result: &Result{Users: []reconcile.User{{Type: reconcile.FederatedID, Email: "x@example.com", LastName: "A"}}}}
	b := NamedResult{Name: "b", Result: &Result{Users: []reconcile.User{{Type: reconcile.FederatedID, Email: "x@example.com", LastName: "B"}}}}
	for _, tc := range []struct {
		order []NamedResult
		want  string
	}{{[]NamedResult{a, b}, "A"}, {[]NamedResult{b, a}, "B"}} {
		users, problems := Merge(tc.order)
		if len(users) != 1 || users[0].LastName != tc.want || len(problems) != 1 {
			t.Errorf("Merge(%s first) = %+v %v, want lastname %s and one conflict", tc.order[0].Name, users, problems, tc.want)
		}
	}
}

func TestUnionGroups(t *testing.T) {
	a := make([]string, 2, 10)
	copy(a, []string{"X", "y"})
	got := UnionGroups(a, []string{"x", "Z", "z", "Y", "w"})
	if !reflect.DeepEqual(got, []string{"X", "y", "Z", "w"}) {
		t.Fatalf("UnionGroups = %q", got)
	}
	if a[:3][2] != "" {
		t.Fatalf("UnionGroups wrote into a's backing array: %q", a[:3])
	}
	if same := UnionGroups(a, []string{"Y"}); &same[0] != &a[0] {
		t.Fatalf("UnionGroups copied although nothing was added")
	}
}

// BenchmarkMerge1M merges two sources of 1,000,000 users that overlap by half.
func BenchmarkMerge1M(b *testing.B) {
	const n = 1_000_000
	mk := func(from int) *Result {
		r := &Result{Users: make([]reconcile.User, n)}
		for i := range r.Users {
			r.Users[i] = reconcile.User{Type: reconcile.FederatedID, Email: fmt.Sprintf("user%d@example.com", from+i),
				FirstName: "F", LastName: "L", Country: "US", Groups: []string{fmt.Sprintf("g%d", i%10)}}
		}
		return r
	}
	in := []NamedResult{{Name: "a", Result: mk(0)}, {Name: "b", Result: mk(n / 2)}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		users, problems := Merge(in)
		if len(users) != n+n/2 || len(problems) != 0 {
			b.Fatalf("got %d users, %d problems", len(users), len(problems))
		}
	}
}

// A value a source took from its defaults (defaultType, defaultCountry)
// gives way to a value of a record's own, from an earlier or a later
// source, and is never a conflict: a file that only adds groups must not
// withhold removals by disagreeing through its defaults.
func TestMergeDefaultsGiveWay(t *testing.T) {
	fed, ent := reconcile.FederatedID, reconcile.EnterpriseID
	hr := NamedResult{Name: "hr", Result: &Result{
		Users: []reconcile.User{
			{Type: ent, Email: "alma@example.com", Country: "SE"},
			{Type: fed, Email: "bo@example.com", Country: "US"},
		},
		Defaulted: []Defaulted{0, DefaultedType | DefaultedCountry},
	}}
	extra := NamedResult{Name: "extra", Result: &Result{
		Users: []reconcile.User{
			{Type: fed, Email: "alma@example.com", Country: "DE", Groups: []string{"Admins"}},
			{Type: ent, Email: "bo@example.com", Country: "GB"},
		},
		Defaulted: []Defaulted{DefaultedType | DefaultedCountry, 0},
	}}
	users, problems := Merge([]NamedResult{hr, extra})
	if len(problems) != 0 {
		t.Fatalf("defaults reported as conflicts: %v", problems)
	}
	want := []reconcile.User{
		{Type: ent, Email: "alma@example.com", Country: "SE", Groups: []string{"Admins"}},
		{Type: ent, Email: "bo@example.com", Country: "GB"},
	}
	if !reflect.DeepEqual(users, want) {
		t.Errorf("users\n got %+v\nwant %+v", users, want)
	}
	// Two values of their own still conflict, whatever the defaults of others.
	extra.Result.Users[1].Country = "FR"
	third := NamedResult{Name: "third", Result: &Result{Users: []reconcile.User{{Type: ent, Email: "bo@example.com", Country: "NL"}}}}
	if _, problems := Merge([]NamedResult{hr, extra, third}); len(problems) != 1 || problems[0].Field != "country" {
		t.Errorf("problems = %v, want the FR/NL country conflict", problems)
	}
}
