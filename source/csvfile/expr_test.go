package csvfile

import (
	"slices"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/internal/sourcetest"
	"github.com/orgsync/orgsync/source/mapping"
)

// readWithExpr reads content through the expressions of ec, tracing
// explain.
func readWithExpr(t *testing.T, content string, ec expr.Config, explain string) (*source.Result, string, error) {
	t.Helper()
	p, err := expr.Compile(ec)
	if err != nil {
		t.Fatal(err)
	}
	return readWithProgram(t, content, p, explain)
}

// readWithProgram reads content through the program p, tracing explain.
func readWithProgram(t *testing.T, content string, p *expr.Program, explain string) (*source.Result, string, error) {
	t.Helper()
	return sourcetest.Read(t, "users.csv", content, identity, func(path string, m *mapping.Mapper) (source.Source, error) {
		cfg := Config{Path: path}
		return cfg.Open("sources[0] (csv users.csv)", source.Options{Mapper: m, Expressions: p, Explain: explain})
	})
}

const exprCSV = "firstname,lastname,email,country,groups,Department,displayName\n" +
	"x,Lee,ann@example.com,DE,eng,Design,Ann Lee\n" + // line 2
	"x,Roe,bo@example.com,CN,eng,Sales,Bo Roe\n" + // line 3: filtered
	"x,Poe,cy@example.com,US,contractors,Sales,\n" + // line 4: set fails (no first word)
	"x,Moe,dee@example.com,US,eng,Sales,Dee Moe\n" + // line 5
	"x,Zoe,not-an-email,US,eng,Sales,Ed Zoe\n" // line 6: bad email (from the file)

// TestExpressionsOverCSVRows runs a filter, groups and set over the other
// columns of a file: one row filtered, one an expression fails on, one bad
// row; the rest proceed.
func TestExpressionsOverCSVRows(t *testing.T) {
	t.Parallel()
	res, path, err := readWithExpr(t, exprCSV, expr.Config{
		Filter: `user.country != "CN"`,
		Groups: `user.attributes.Department == "Design" ? ["Design"] : []`,
		Set:    map[string]string{"firstname": `user.attributes.displayName.split(" ")[0]`, "lastname": `user.attributes.displayName.split(" ")[1]`},
	}, "ANN@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if res.Users.Len() != 2 {
		t.Fatalf("got %d users, want ann and dee: %+v", res.Users.Len(), res.Users.List())
	}
	ann, dee := res.Users.At(0), res.Users.At(1)
	if ann.FirstName != "Ann" || !slices.Equal(ann.Groups, []string{"eng", "Design"}) || dee.FirstName != "Dee" || !slices.Equal(dee.Groups, []string{"eng"}) {
		t.Errorf("users = %+v", res.Users.List())
	}
	if len(res.Filtered) != 1 || res.Filtered[0].Email != "bo@example.com" {
		t.Errorf("Filtered = %+v, want bo", res.Filtered)
	}
	checkProblems(t, path, res.Problems, []wantProblem{
		{4, "set.lastname", `expression user.attributes.displayName.split(" ")[1] failed`},
		{6, "email", "not-an-email"},
	})
	if len(res.Traces) != 1 || res.Traces[0].Line != 2 || res.Traces[0].Set["firstname"] != "Ann" || !slices.Equal(res.Traces[0].ExprGroups, []string{"Design"}) {
		t.Errorf("Traces = %+v, want ann's row", res.Traces)
	}
}

// TestComputedBadValueIsABadRecord: a value set computes is checked like
// the file's own, and reported under the set key.
func TestComputedBadValueIsABadRecord(t *testing.T) {
	t.Parallel()
	res, path, err := readWithExpr(t, exprCSV, expr.Config{
		Set: map[string]string{"country": `user.attributes.Department == "Design" ? "Narnia" : user.country`},
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	checkProblems(t, path, res.Problems, []wantProblem{
		{2, "set.country", `"Narnia" is not an ISO 3166-1 alpha-2 country code (e.g. US, DE, GB) (computed by the expression user.attributes.Department == "Design" ? "Narnia" : user.country)`},
		{6, "email", "not-an-email"},
	})
	if res.Users.Len() != 3 {
		t.Errorf("got %d users, want 3", res.Users.Len())
	}
}

// TestFilterLeavingNothingFails: an empty source would remove everybody.
func TestFilterLeavingNothingFails(t *testing.T) {
	t.Parallel()
	_, _, err := readWithExpr(t, exprCSV, expr.Config{Filter: `user.country == "XX"`}, "")
	if err == nil || !strings.Contains(err.Error(), "the filter expression left none of its 5 user records") {
		t.Fatalf("err = %v", err)
	}
	// Scope groups that no row is in leave the source out, without failing it.
	var none *expr.Program
	res, _, err := readWithProgram(t, exprCSV[:strings.Index(exprCSV, "x,Zoe")], none.WithScope([]string{"finance"}), "")
	if err != nil || res.Users.Len() != 0 || len(res.Filtered) != 4 {
		t.Fatalf("scope outside the file: %+v, %v; want no users and 4 left out", res, err)
	}
}

// TestComputedBadEmailIsABadRecord: an email set computes is checked like
// the file's own: a bad one is reported under set.email with the row's
// line, and the other rows proceed.
func TestComputedBadEmailIsABadRecord(t *testing.T) {
	t.Parallel()
	res, path, err := readWithExpr(t, exprCSV, expr.Config{
		Set: map[string]string{"email": `user.attributes.Department == "Design" ? user.attributes.displayName + "@example.com" : user.email`},
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	checkProblems(t, path, res.Problems, []wantProblem{
		{2, "set.email", `"Ann Lee@example.com"`},
		{6, "email", "not-an-email"},
	})
	if res.Users.Len() != 3 || res.Users.At(0).Email != "bo@example.com" {
		t.Errorf("users = %+v, want the 3 others", res.Users.List())
	}
}

// TestHostileRowIsABadRecord: a row whose values make an expression go
// over its limits is a bad record with its line; the other rows proceed.
func TestHostileRowIsABadRecord(t *testing.T) {
	t.Parallel()
	content := exprCSV[:strings.Index(exprCSV, "x,Zoe")] + "x,Yu,yu@example.com,US,eng,Sales," + strings.Repeat("a", 60000) + "\n"
	res, path, err := readWithExpr(t, content, expr.Config{
		Set: map[string]string{"firstname": `user.attributes.displayName.replace("", user.attributes.displayName).substring(0, 1)`},
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	checkProblems(t, path, res.Problems, []wantProblem{
		{4, "set.firstname", "failed: index out of range: 1: this record is skipped"}, // cy's displayName is empty
		{6, "set.firstname", "replace would make a string of more than 1048576 bytes"},
	})
	if res.Users.Len() != 3 { // ann, bo, dee
		t.Errorf("got %d users: %+v", res.Users.Len(), res.Users.List())
	}
}

// TestMisspeltAttributeFailsAtTheHeader: an expression reading a column
// the file lacks fails the source at its header, naming the expression,
// the attribute and the columns there are, instead of failing every row.
func TestMisspeltAttributeFailsAtTheHeader(t *testing.T) {
	t.Parallel()
	_, path, err := readWithExpr(t, exprCSV, expr.Config{Filter: `user.attributes.Departement != "Sales"`}, "")
	want := ":1: filter reads user.attributes.Departement, but the file has no such column (its columns of no user field: Department, displayName)"
	if err == nil || !strings.Contains(err.Error(), path+want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
}
