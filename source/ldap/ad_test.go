package ldap_test

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/secret/secrettest"
	"github.com/orgsync/orgsync/source/ldap"
	"github.com/orgsync/orgsync/source/ldap/internal/adtest"
	"github.com/orgsync/orgsync/source/mapping"
)

const (
	adBase   = "dc=corp,dc=example"
	adUsers  = "ou=users," + adBase
	adGroups = "ou=groups," + adBase
	adBindDN = "cn=svc-orgsync," + adUsers
	adPass   = "ad-secret"
)

// sid returns the binary objectSid S-1-5-21-1-2-3-rid.
func sid(rid uint32) string {
	b := []byte{1, 5, 0, 0, 0, 0, 0, 5}
	for _, sub := range []uint32{21, 1, 2, 3, rid} {
		b = binary.LittleEndian.AppendUint32(b, sub)
	}
	return string(b)
}

func adUser(name, uac, primary string, extra ...string) adtest.Entry {
	attrs := map[string][]string{
		"objectClass": {"top", "person", "organizationalPerson", "user"}, "objectCategory": {"person"},
		"sAMAccountName": {name}, "mail": {name + "@corp.example"}, "givenName": {strings.ToUpper(name[:1]) + name[1:]},
		"sn": {"Doe"}, "c": {"DE"}, "userAccountControl": {uac}, "primaryGroupID": {primary},
	}
	return adtest.Entry{DN: "cn=" + name + "," + adUsers, Attrs: attrs}
}

func adGroup(cn string, rid uint32, base string, members ...string) adtest.Entry {
	return adtest.Entry{DN: "cn=" + cn + "," + base, Attrs: map[string][]string{
		"objectClass": {"top", "group"}, "cn": {cn}, "objectSid": {sid(rid)}, "member": members,
	}}
}

func adEntries() []adtest.Entry {
	u := func(n string) string { return "cn=" + n + "," + adUsers }
	g := func(n string) string { return "cn=" + n + "," + adGroups }
	return []adtest.Entry{
		{DN: adBindDN, Attrs: map[string][]string{"objectClass": {"user"}, "objectCategory": {"person"}, "userAccountControl": {"66048"}}},
		adUser("alice", "512", "513"),
		adUser("bob", "66048", "513"),
		adUser("carol", "512", "1105"),
		adUser("dave", "512", "513"),
		adUser("erin", "514", "513"),   // disabled
		adUser("frank", "512", "1106"), // primary group Field
		adGroup("Domain Users", 513, adGroups),
		adGroup("Staff", 1101, adGroups, g("Domain Users")),
		adGroup("Eng", 1102, adGroups, u("alice"), u("erin"), g("Platform")),
		adGroup("Platform", 1103, adGroups, u("bob"), g("Eng")), // cycle Eng <-> Platform
		adGroup("dev*)(|(cn*", 1104, adGroups, u("carol")),
		adGroup("Contractors", 1105, adGroups),
		adGroup("Field", 1106, adGroups),
		adGroup("legacy-finance", 1107, "ou=other,"+adBase, u("dave")), // outside groups.baseDN: found through memberOf
	}
}

func adRules() []mapping.Rule {
	return []mapping.Rule{
		{Directory: "Eng", Targets: []string{"Engineering"}},
		{Directory: "Platform", Targets: []string{"Platform"}},
		{Directory: "Staff", Targets: []string{"All Staff"}},
		{Directory: "dev*)(|(cn*", Targets: []string{"Dev"}},
		{Directory: "Field", Targets: []string{"Field"}},
		{Pattern: "cn=legacy-(.*)", Targets: []string{"Legacy $1"}},
	}
}

func adConfig(t *testing.T, url string) ldap.Config {
	return ldap.Config{
		URL: url, BindDN: adBindDN, Password: secrettest.File(t, adPass), PageSize: 2,
		Users:  ldap.Users{BaseDN: adUsers, Username: "{sAMAccountName}", Domain: "corp.example"},
		Groups: ldap.Groups{BaseDN: adGroups},
	}
}

// TestActiveDirectory checks the searches the source sends to Active
// Directory (the default filter, in-chain searches, escaping), which the
// fake records; reading a real domain is TestActiveDirectoryOnSamba.
func TestActiveDirectory(t *testing.T) {
	t.Parallel()
	srv := adtest.Start(t, adtest.Options{BindDN: adBindDN, Password: adPass, Entries: adEntries(), SizeLimit: 3})
	res, err := read(t, adConfig(t, srv.URL), newMapper(t, adRules()), nil)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	want := map[string][]string{
		"alice@corp.example": {"Engineering", "Platform", "All Staff"},
		"bob@corp.example":   {"Platform", "Engineering", "All Staff"},
		"carol@corp.example": {"Dev"},
		"dave@corp.example":  {"All Staff", "Legacy finance"},
		"frank@corp.example": {"Field"},
	}
	users := byEmail(res.Users)
	if len(users) != len(want) {
		t.Errorf("got users %v, want %d (erin is disabled, the service account has no mail)", keys(users), len(want))
	}
	for email, groups := range want {
		if u := users[email]; !sameSet(u.Groups, groups) {
			t.Errorf("%s groups = %q, want %q", email, u.Groups, groups)
		}
	}
	if a := users["alice@corp.example"]; a.Username != "alice" || a.FirstName != "Alice" || a.Country != "DE" {
		t.Errorf("alice = %+v", a)
	}
	assertProblems(t, res.Problems, map[string]string{adBindDN: "email"})
	filters := strings.Join(srv.Filters(), "\n")
	for _, want := range []string{
		"(userAccountControl:1.2.840.113556.1.4.803:=2)",                                            // default AD user filter
		"(memberOf:1.2.840.113556.1.4.1941:=cn=Eng,ou=groups,dc=corp,dc=example)",                   // in-chain members
		`(memberOf:1.2.840.113556.1.4.1941:=cn=dev\2a\29\28|\28cn\2a,ou=groups,dc=corp,dc=example)`, // escaped
	} {
		if !strings.Contains(filters, want) {
			t.Errorf("no search with %s; filters:\n%s", want, filters)
		}
	}
}

func TestRepeatedPagingCookieFailsTheSearch(t *testing.T) {
	t.Parallel()
	srv := adtest.Start(t, adtest.Options{BindDN: adBindDN, Password: adPass, Entries: adEntries(), RepeatCookie: true})
	done := make(chan error, 1)
	go func() {
		_, err := read(t, adConfig(t, srv.URL), newMapper(t, adRules()), nil)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "paging cookie") {
			t.Fatalf("err = %v, want the repeated paging cookie named", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Read still running after 30 s: a repeated paging cookie is read for ever")
	}
}

// Windows returns the member values of a group beyond its MaxValRange
// (1,500) in parts, member;range=0-1499 and so on, which Samba does not
// do: the source reads every part.
func TestRangedMemberValues(t *testing.T) {
	t.Parallel()
	const n = 3200
	entries := []adtest.Entry{{DN: adBindDN, Attrs: map[string][]string{"objectClass": {"user"}}}}
	var members []string
	for i := range n {
		u := adUser(fmt.Sprintf("user%04d", i), "512", "513")
		entries = append(entries, u)
		members = append(members, u.DN)
	}
	entries = append(entries, adGroup("Huge", 1200, adGroups, members...))
	srv := adtest.Start(t, adtest.Options{BindDN: adBindDN, Password: adPass, Entries: entries, MaxValRange: 1500})
	cfg := adConfig(t, srv.URL)
	cfg.Flavor, cfg.PageSize = ldap.FlavorOpenLDAP, 1000 // member lists instead of the in-chain rule
	cfg.Users.Filter, cfg.Groups.Filter, cfg.Groups.Membership = ldap.ADUserFilter, ldap.ADGroupFilter, []string{ldap.MemberDN}
	res, err := read(t, cfg, newMapper(t, []mapping.Rule{{Directory: "Huge", Targets: []string{"Huge"}}}), nil)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	inGroup := 0
	for _, u := range res.Users.All() {
		if slices.Equal(u.Groups, []string{"Huge"}) {
			inGroup++
		}
	}
	if res.Users.Len() != n || inGroup != n {
		t.Fatalf("read %d users, %d of them in Huge; want %d in it", res.Users.Len(), inGroup, n)
	}
	ranges := 0
	for _, f := range srv.Filters() {
		if f == "(objectClass=*)" {
			ranges++
		}
	}
	if ranges != 2 { // 0-1499 came with the group; 1500-2999 and 3000-* asked for
		t.Errorf("%d range searches, want 2", ranges)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// An attribute value that is not UTF-8 makes its entry a bad record, with
// the DN and field; the other entries are read.
func TestInvalidUTF8IsABadRecord(t *testing.T) {
	t.Parallel()
	entries := adEntries()
	juergen := adUser("juergen", "512", "513")
	juergen.Attrs["givenName"] = []string{"J\xfcrgen"}
	// A directory group whose name is not UTF-8, made a target by a pattern rule.
	entries = append(entries, juergen, adUser("gus", "512", "513"),
		adGroup("legacy-m\xfcnchen", 1108, "ou=other,"+adBase, "cn=gus,"+adUsers))
	gus := &entries[len(entries)-2]
	gus.Attrs["memberOf"] = []string{"cn=legacy-m\xfcnchen,ou=other," + adBase}
	srv := adtest.Start(t, adtest.Options{BindDN: adBindDN, Password: adPass, Entries: entries})
	res, err := read(t, adConfig(t, srv.URL), newMapper(t, adRules()), nil)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if _, ok := byEmail(res.Users)["juergen@corp.example"]; ok {
		t.Error("the entry with a value that is not UTF-8 was read")
	}
	if _, ok := byEmail(res.Users)["alice@corp.example"]; !ok {
		t.Error("the other entries were not read")
	}
	assertProblems(t, res.Problems, map[string]string{adBindDN: "email", juergen.DN: "firstname", gus.DN: "groups"})
	for _, p := range res.Problems {
		if p.Record == juergen.DN && !strings.Contains(p.Reason, "not UTF-8 (an invalid byte at character 2 of the value)") {
			t.Errorf("problem %s, want it to say the value is not UTF-8", p)
		}
	}
}
