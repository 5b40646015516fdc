package source

import (
	"strings"
	"testing"
)

func TestCheckGroups(t *testing.T) {
	t.Parallel()
	where := `under "ou=groups,dc=example,dc=com" with filter (objectClass=groupOfNames)`
	ldap := NamedResult{Name: "sources[0] (ldap)", Result: &Result{
		FoundGroups:   []string{"eng"},
		MissingGroups: []MissingGroup{{Group: "contractors", Where: where}, {Group: "renamed", Where: where}},
	}}
	csv := NamedResult{Name: "sources[1] (csv users.csv)", Result: &Result{FoundGroups: []string{"contractors"}}}

	_, err := CheckGroups([]NamedResult{ldap, csv})
	if err == nil {
		t.Fatal("a group no source has passed the check")
	}
	msg := err.Error()
	for _, want := range []string{"sources[0] (ldap): ", `"renamed" not found ` + where, "no other source names them", "fix the mapping rule"} {
		if !strings.Contains(msg, want) {
			t.Errorf("err = %q, want it to contain %q", msg, want)
		}
	}
	if strings.Contains(msg, "contractors") {
		t.Errorf("err = %q names contractors, which the CSV file has", msg)
	}

	ldap.Result.MissingGroups = ldap.Result.MissingGroups[:1]
	accepted, err := CheckGroups([]NamedResult{ldap, csv})
	if err != nil {
		t.Errorf("every missing group is in another source, err = %v", err)
	}
	if len(accepted) != 1 || accepted[0].Result != 0 || accepted[0].Group != "contractors" || accepted[0].Where != where {
		t.Errorf("accepted = %+v, want contractors, missed by result 0", accepted)
	}
	if _, err := CheckGroups([]NamedResult{ldap}); err == nil || strings.Contains(err.Error(), "other source") {
		t.Errorf("alone, the LDAP source's missing group must fail without naming other sources: %v", err)
	}
}

func TestMissingGroupsErrorGroupsByWhere(t *testing.T) {
	t.Parallel()
	err := MissingGroupsError([]MissingGroup{{"a", "under A"}, {"b", "under A"}, {"c", "under B"}}, false)
	want := `mapped directory group(s) "a", "b" not found under A; "c" not found under B: fix`
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %q, want it to start with %q", err, want)
	}
}
