package source

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/internal/util/memlimit"
	"github.com/orgsync/orgsync/reconcile"
)

func TestMerge(t *testing.T) {
	t.Parallel()
	fed := reconcile.FederatedID
	ldap := NamedResult{Name: "sources[0] (ldap)", Result: &Result{
		Users: reconcile.UsersOf([]reconcile.User{
			{Type: fed, Email: "ann@example.com", FirstName: "Ann", Groups: []string{"Design", "All"}},
			{Type: fed, Email: "bob@example.com", LastName: "Ray", Country: "US"},
			{Type: fed, Username: "jdoe", Domain: "corp.example.com", FirstName: "J"},
		}...),
		Problems: []Problem{{Source: "sources[0] (ldap)", Reason: "bad entry"}},
	}}
	csv := NamedResult{Name: "sources[1] (csv)", Result: &Result{
		Users: reconcile.UsersOf([]reconcile.User{
			{Type: fed, Email: "ANN@example.com", FirstName: "Anne", LastName: "Lee", Groups: []string{"design", "Eng"}},
			{Type: reconcile.EnterpriseID, Email: "bob@example.com", LastName: "Ray", Country: "DE"},
			{Type: fed, Email: "cy@example.com"},
			{Type: fed, Username: "JDOE", Domain: "CORP.example.com", Email: "jd@example.com"},
		}...),
	}}
	users, problems := Merge([]NamedResult{ldap, {Name: "empty"}, csv})
	want := []reconcile.User{
		{Type: fed, Email: "ann@example.com", FirstName: "Ann", LastName: "Lee", Groups: []string{"Design", "All", "Eng"}},
		{Type: fed, Email: "bob@example.com", LastName: "Ray", Country: "US"},
		{Type: fed, Username: "jdoe", Domain: "corp.example.com", FirstName: "J", Email: "jd@example.com"},
		{Type: fed, Email: "cy@example.com"},
	}
	if !reflect.DeepEqual(users.List(), want) {
		t.Fatalf("users\n got %+v\nwant %+v", users.List(), want)
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
	if got := ldap.Result.Users.At(0); !reflect.DeepEqual(got.Groups, []string{"Design", "All"}) || got.LastName != "" {
		t.Errorf("Merge changed its input: %+v", got)
	}
}

func TestMergeOrderMatters(t *testing.T) {
	t.Parallel()
	a := NamedResult{Name: "a", Result: &Result{Users: reconcile.UsersOf(reconcile.User{Type: reconcile.FederatedID, Email: "x@example.com", LastName: "A"})}}
	b := NamedResult{Name: "b", Result: &Result{Users: reconcile.UsersOf(reconcile.User{Type: reconcile.FederatedID, Email: "x@example.com", LastName: "B"})}}
	for _, tc := range []struct {
		order []NamedResult
		want  string
	}{{[]NamedResult{a, b}, "A"}, {[]NamedResult{b, a}, "B"}} {
		users, problems := Merge(tc.order)
		if users.Len() != 1 || users.At(0).LastName != tc.want || len(problems) != 1 {
			t.Errorf("Merge(%s first) = %+v %v, want lastname %s and one conflict", tc.order[0].Name, users.List(), problems, tc.want)
		}
	}
}

// TestMergeOfOneSourceIsNoCopy: one source (each user once) has nothing
// to merge: its users are handed on as they are, not copied.
func TestMergeOfOneSourceIsNoCopy(t *testing.T) {
	t.Parallel()
	r := &Result{Users: reconcile.UsersOf(
		reconcile.User{Type: reconcile.FederatedID, Email: "a@example.com", Groups: []string{"G"}},
		reconcile.User{Type: reconcile.FederatedID, Email: "b@example.com"}),
		Problems: []Problem{{Reason: "bad row"}}}
	users, problems := Merge([]NamedResult{{Name: "only", Result: r}})
	if users.Len() != 2 || len(problems) != 1 || &users.At(0).Groups[0] != &r.Users.At(0).Groups[0] {
		t.Errorf("Merge of one source: %+v %v (a copy?)", users.List(), problems)
	}
}

func TestUnionGroups(t *testing.T) {
	t.Parallel()
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
		r := &Result{}
		for i := range n {
			r.Users.Add(reconcile.User{Type: reconcile.FederatedID, Email: fmt.Sprintf("user%d@example.com", from+i),
				FirstName: "F", LastName: "L", Country: "US", Groups: []string{fmt.Sprintf("g%d", i%10)}})
		}
		return r
	}
	in := []NamedResult{{Name: "a", Result: mk(0)}, {Name: "b", Result: mk(n / 2)}}
	b.ReportAllocs()
	b.ResetTimer()
	memlimit.ResetPeak()
	for i := 0; i < b.N; i++ {
		users, problems := Merge(in)
		if users.Len() != n+n/2 || len(problems) != 0 {
			b.Fatalf("got %d users, %d problems", users.Len(), len(problems))
		}
	}
	b.ReportMetric(float64(memlimit.PeakRSS())/(1<<20), "peak-rss-MiB")
}

// A value a source took from its defaults (defaultType, defaultCountry)
// gives way to a value of a record's own, from an earlier or a later
// source, and is never a conflict: a file that only adds groups must not
// withhold removals by disagreeing through its defaults.
func TestMergeDefaultsGiveWay(t *testing.T) {
	t.Parallel()
	fed, ent := reconcile.FederatedID, reconcile.EnterpriseID
	hr := NamedResult{Name: "hr", Result: &Result{
		Users: reconcile.UsersOf([]reconcile.User{
			{Type: ent, Email: "alma@example.com", Country: "SE"},
			{Type: fed, Email: "bo@example.com", Country: "US"},
		}...),
		Defaulted: []Defaulted{0, DefaultedType | DefaultedCountry},
	}}
	extra := NamedResult{Name: "extra", Result: &Result{
		Users: reconcile.UsersOf([]reconcile.User{
			{Type: fed, Email: "alma@example.com", Country: "DE", Groups: []string{"Admins"}},
			{Type: ent, Email: "bo@example.com", Country: "GB"},
		}...),
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
	if !reflect.DeepEqual(users.List(), want) {
		t.Errorf("users\n got %+v\nwant %+v", users.List(), want)
	}
	// Two values of their own still conflict, whatever the defaults of others.
	bo := extra.Result.Users.At(1)
	bo.Country = "FR"
	extra.Result.Users.Set(1, bo)
	third := NamedResult{Name: "third", Result: &Result{Users: reconcile.UsersOf(reconcile.User{Type: ent, Email: "bo@example.com", Country: "NL"})}}
	if _, problems := Merge([]NamedResult{hr, extra, third}); len(problems) != 1 || problems[0].Field != "country" {
		t.Errorf("problems = %v, want the FR/NL country conflict", problems)
	}
}
