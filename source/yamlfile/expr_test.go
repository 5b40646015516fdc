package yamlfile

import (
	"slices"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/internal/sourcetest"
	"github.com/orgsync/orgsync/source/mapping"
)

// TestExpressionsOverYAMLUsers: with expressions, a user's keys that are no
// field are its attributes (a missing one is absent: has() tests it), and
// a list under such a key is a problem of that user only.
func TestExpressionsOverYAMLUsers(t *testing.T) {
	t.Parallel()
	const doc = `users:
  - {email: ann@example.com, groups: [eng], department: Design}
  - {email: bo@example.com, groups: [eng]}
  - {email: cy@example.com, department: [a, b]}
  - {email: dee@example.com, contractor: "yes"}
`
	p, err := expr.Compile(expr.Config{
		Filter: `!has(user.attributes.contractor)`,
		Groups: `has(user.attributes.department) && user.attributes.department == "Design" ? ["Design"] : []`,
	})
	if err != nil {
		t.Fatal(err)
	}
	res, path, err := sourcetest.Read(t, "users.yaml", doc, identity, func(path string, m *mapping.Mapper) (source.Source, error) {
		cfg := Config{Path: path}
		return cfg.Open("sources[0] (yaml users.yaml)", source.Options{Mapper: m, Expressions: p})
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Users.Len() != 2 || !slices.Equal(res.Users.At(0).Groups, []string{"eng", "Design"}) || !slices.Equal(res.Users.At(1).Groups, []string{"eng"}) {
		t.Errorf("users = %+v, want ann (eng, Design) and bo (eng)", res.Users.List())
	}
	if len(res.Filtered) != 1 || res.Filtered[0].Email != "dee@example.com" {
		t.Errorf("Filtered = %+v, want dee", res.Filtered)
	}
	if len(res.Problems) != 1 || res.Problems[0].File != path || res.Problems[0].Line != 4 || res.Problems[0].Field != "department" ||
		!strings.Contains(res.Problems[0].Reason, "single value") {
		t.Errorf("problems = %v, want cy's department on line 4", res.Problems)
	}
}
