package ldap_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/ldap"
	"github.com/orgsync/orgsync/source/ldap/internal/slapdtest"
)

// TestOpenLDAPExpressions reads the test directory through a filter, a
// groups and set expressions over extra attributes and directory groups
// (nested ones included), with one entry an expression fails on and one
// whose computed value is bad.
func TestOpenLDAPExpressions(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t, slapdtest.Options{LDIF: fixture()})
	cfg := readerConfig(t, srv.URL)
	cfg.Users.ExtraAttributes = []string{"cn", "uid", "employeeType"}
	p, err := expr.Compile(expr.Config{
		Filter: `user.attributes.uid != "user010" && !("unmapped" in directoryGroups)`,
		Groups: `"platform" in directoryGroups ? ["Platform Team"] : []`,
		Set: map[string]string{
			"firstname": `user.attributes.cn.split(" ")[0]`,
			"country":   `user.attributes.employeeType == "" ? "DE" : "US"`,
			"lastname":  `user.attributes.uid == "user011" ? user.attributes.missing : user.lastname`,
			"email":     `user.attributes.uid == "user012" ? "not-an-email" : user.email`,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	res := openAndRead(t, cfg, source.Options{Mapper: newMapper(t, testRules()), Expressions: p, Explain: "USER003@example.com"})
	users := byEmail(res.Users)
	if res.Users.Len() != nUsers-4 {
		t.Errorf("got %d users, want %d (two left out, two bad)", res.Users.Len(), nUsers-4)
	}
	for _, gone := range []string{"user008@example.com", "user010@example.com", "user011@example.com", "user012@example.com"} {
		if _, ok := users[gone]; ok {
			t.Errorf("%s is a user; it should be left out or skipped", gone)
		}
	}
	var filtered []string
	for _, u := range res.Filtered {
		filtered = append(filtered, u.Email)
	}
	if slices.Sort(filtered); !slices.Equal(filtered, []string{"user008@example.com", "user010@example.com"}) {
		t.Errorf("Filtered = %q, want user008 (in unmapped) and user010", filtered)
	}
	for i, want := range map[string][]string{"user001@example.com": {"Engineering", "Platform", "Platform Team"},
		"user003@example.com": {"Platform", "Engineering", "Platform Team"}, "user004@example.com": {"Sales", "CRM profile"}} {
		if u := users[i]; !sameSet(u.Groups, want) || u.FirstName != "User" || u.Country != "DE" || !strings.HasPrefix(u.LastName, "Family") {
			t.Errorf("%s = %+v, want groups %q, first name User (from cn), country DE", i, u, want)
		}
	}
	assertProblems(t, res.Problems, map[string]string{
		"uid=bademail," + people: "email", "uid=nomail," + people: "email",
		"uid=user011," + people: "set.lastname", "uid=user012," + people: "set.email",
	})
	if len(res.Traces) != 1 || !sameSet(res.Traces[0].DirectoryGroups, []string{"eng", "platform"}) ||
		!slices.Equal(res.Traces[0].ExprGroups, []string{"Platform Team"}) || res.Traces[0].Set["firstname"] != "User" {
		t.Errorf("Traces = %+v, want user003's, in eng and platform (nested), given Platform Team", res.Traces)
	}
}

// TestOpenLDAPAttributeValues: a multi-valued attribute named in
// extraAttributes gives the expressions all its values, in the server's
// order, in user.attributeValues, and its first in user.attributes.
func TestOpenLDAPAttributeValues(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t, slapdtest.Options{LDIF: fixture()})
	cfg := readerConfig(t, srv.URL)
	cfg.Users.ExtraAttributes = []string{"mail", "uid"}
	p, err := expr.Compile(expr.Config{
		Filter: `user.attributeValues.uid == ["user001"] || user.attributeValues.uid == ["user002"]`,
		Groups: `user.attributeValues.mail.map(m, "mail " + m) + [user.attributes.mail] + (user.attributeValues.mail.exists(m, m.startsWith("second002@")) ? ["Second"] : [])`,
	})
	if err != nil {
		t.Fatal(err)
	}
	res := openAndRead(t, cfg, source.Options{Mapper: newMapper(t, nil), Expressions: p})
	users := byEmail(res.Users)
	for i, want := range map[string][]string{
		"user001@example.com": {"mail user001@example.com", "mail second001@example.com", "user001@example.com"},
		"user002@example.com": {"mail user002@example.com", "mail second002@example.com", "user002@example.com", "Second"},
	} {
		if !slices.Equal(users[i].Groups, want) {
			t.Errorf("%s: groups %q, want %q", i, users[i].Groups, want)
		}
	}
	if res.Users.Len() != 2 {
		t.Errorf("%d users, want user001 and user002", res.Users.Len())
	}
}

// openAndRead opens the source of cfg with opts and reads it once.
func openAndRead(t *testing.T, cfg ldap.Config, opts source.Options) *source.Result {
	t.Helper()
	src, err := cfg.Open("sources[0]", opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res
}
