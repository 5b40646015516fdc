package usertmpl_test

import (
	"strings"
	"testing"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/internal/usertmpl"
)

// TestAGroupNameOverTheServicesLimitIsAProblemOfTheRecord: a directory
// record (LDAP, cloud) whose target groups include one of more than 255
// characters is refused with its record's name; the problem quotes only
// the start of the group's name.
func TestAGroupNameOverTheServicesLimitIsAProblemOfTheRecord(t *testing.T) {
	t.Parallel()
	fields, err := usertmpl.Parse(usertmpl.Spec{Templates: source.Templates{Email: "{mail}", FirstName: "{given}", LastName: "{sur}", Country: "{c}"}}, usertmpl.Spec{}, "users.")
	if err != nil {
		t.Fatal(err)
	}
	c := usertmpl.NewCollector("src", "ldaps://dc1", &fields)
	a := attrs{"mail": "ann@example.com", "given": "Ann", "sur": "Lee", "c": "US"}
	c.Build("cn=ann,dc=example,dc=com", a, []string{"Design", strings.Repeat("G", 1<<20)}, nil)
	a["mail"] = "bob@example.com"
	c.Build("cn=bob,dc=example,dc=com", a, []string{strings.Repeat("g", 255)}, nil)
	res := c.Result()
	if res.Users.Len() != 1 || res.Users.At(0).Email != "bob@example.com" || len(res.Problems) != 1 {
		t.Fatalf("users %d, problems %v", res.Users.Len(), res.Problems)
	}
	p := res.Problems[0]
	if p.Record != "cn=ann,dc=example,dc=com" || p.Field != "groups" ||
		!strings.Contains(p.Reason, "group name has 1048576 characters, the service allows at most 255") || len(p.Reason) > 500 {
		t.Errorf("problem %.600s", p.String())
	}
}
