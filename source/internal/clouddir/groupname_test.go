package clouddir_test

import (
	"context"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/internal/clouddir"
	"github.com/orgsync/orgsync/source/internal/sourcetest"
	"github.com/orgsync/orgsync/source/internal/usertmpl"
	"github.com/orgsync/orgsync/source/mapping"
)

// TestAGroupMappedToANameOverTheServicesLimitIsAProblem: a directory
// group that a pattern rule maps to a target group of more than 255
// characters is a problem naming the group (its members do not get that
// target, and the run removes no one, as with any problem); the other
// groups map as usual.
func TestAGroupMappedToANameOverTheServicesLimitIsAProblem(t *testing.T) {
	t.Parallel()
	d := &directory{n: 6, failAt: -1, release: make(chan struct{}), afterUser: func(int) {}}
	close(d.release)
	fields, err := usertmpl.Parse(usertmpl.Spec{Templates: source.Templates{Email: "{mail}", FirstName: "{mail}", LastName: "{mail}", Country: "{c}"}},
		usertmpl.Spec{}, "users.")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("L", 300)
	m := sourcetest.Mapper(t, []mapping.Rule{{Pattern: "g0", Targets: []string{"G0"}}, {Pattern: "g(1)", Targets: []string{long + "$1"}}})
	res, err := clouddir.Read(context.Background(), d, clouddir.Options{Name: "test", Mapper: m, Fields: &fields})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) != 1 || res.Problems[0].Record != `group "g1" (id-g1)` ||
		!strings.Contains(res.Problems[0].Reason, "group name has 301 characters, the service allows at most 255") {
		t.Fatalf("problems %v", res.Problems)
	}
	for _, u := range res.Users.All() {
		for _, g := range u.Groups {
			if len(g) > 255 {
				t.Errorf("%s has the group %.40s… of %d characters", u.Email, g, len(g))
			}
		}
	}
	if res.Users.Len() != 6 || len(res.Users.At(0).Groups) != 1 || res.Users.At(0).Groups[0] != "G0" {
		t.Errorf("users %+v", res.Users)
	}
}
