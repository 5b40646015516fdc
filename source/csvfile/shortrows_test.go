package csvfile

import (
	"strings"
	"testing"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/internal/sourcetest"
	"github.com/orgsync/orgsync/source/mapping"
)

// incumbentExample is the incumbent tool's published example CSV file
// (users-file-with-custom-attributes-and-mappings.csv): its rows stop
// after the type field, three fields short of the header.
const incumbentExample = "firstname,lastname,email,country,groups,bc,subco,type,username,domain\n" +
	"Hook1,User,hook1@example.net,US,,JP1234567,\"Company 1\",federatedID\n" +
	"Hook2,User,hook2@example.net,US,,GB0070008,\"Company 2\",federatedID\n" +
	"Hook3,User,hook3@example.net,US,,FR4444444,\"Company 3\",federatedID\n"

// With shortRows: empty a short row is read as the incumbent reads it,
// its missing trailing fields empty (the extra columns too, for the
// expressions); by default each is a bad record. A long row stays bad.
func TestShortRows(t *testing.T) {
	t.Parallel()
	p, err := expr.Compile(expr.Config{Groups: `user.attributes.subco == "Company 1" ? ["C1"] : []`})
	if err != nil {
		t.Fatal(err)
	}
	read := func(shortRows, content string) (*source.Result, error) {
		res, _, err := sourcetest.Read(t, "users.csv", content, identity, func(path string, m *mapping.Mapper) (source.Source, error) {
			cfg := Config{Path: path, ShortRows: shortRows}
			return cfg.Open("sources[0] (csv users.csv)", source.Options{Mapper: m, Expressions: p})
		})
		return res, err
	}
	res, err := read(ShortRowsEmpty, incumbentExample)
	if err != nil {
		t.Fatal(err)
	}
	if res.Users.Len() != 3 || len(res.Problems) != 0 {
		t.Fatalf("users %+v, problems %v", res.Users, res.Problems)
	}
	u := res.Users.At(0)
	if u.Email != "hook1@example.net" || u.Type != "federatedID" || u.Username != "" || strings.Join(u.Groups, ",") != "C1" {
		t.Errorf("first user %+v", u)
	}
	res, err = read("", incumbentExample)
	if err == nil && (res.Users.Len() != 0 || len(res.Problems) != 3) {
		t.Errorf("default: users %+v, problems %v", res.Users, res.Problems)
	}
	res, err = read(ShortRowsEmpty, incumbentExample+"Hook4,User,hook4@example.net,US,,JP1,C,federatedID,u,example.net,extra\n")
	if err != nil || res.Users.Len() != 3 || len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Reason, "has 11 fields but the header has 10") {
		t.Errorf("long row: %v, users %d, problems %v", err, res.Users.Len(), res.Problems)
	}
	bad := Config{Path: "x.csv", ShortRows: "pad"}
	if errs := bad.Validate(); len(errs) != 1 || errs[0].Field != "shortRows" {
		t.Errorf("shortRows: pad: %v", errs)
	}
}
