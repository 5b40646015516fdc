package dirsrv_test

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"slices"
	"testing"

	ldap3 "github.com/go-ldap/ldap/v3"

	"github.com/orgsync/orgsync/source/ldap/dirsrv"
	"github.com/orgsync/orgsync/source/ldap/internal/dirsrvtest"
)

// TestStartServesTheFreeIPATree: two servers of the fixture run side by
// side on their own ports; over LDAPS with the instance's CA and host
// name, the reader account finds the users, with memberOf kept by the
// plugin through nested groups (but not for groupOfUniqueNames); the
// server's limits stop the limited account's paged search; an anonymous
// bind sees nothing.
func TestStartServesTheFreeIPATree(t *testing.T) {
	t.Parallel()
	s, other := dirsrvtest.Start(t), dirsrvtest.Start(t)
	if s.URL == other.URL || s.LDAPSURL == other.LDAPSURL {
		t.Fatalf("two servers on the same address: %s %s", s.URL, other.URL)
	}
	conn := dial(t, s, dirsrvtest.Reader)
	res, err := conn.SearchWithPaging(search(dirsrvtest.Users, "(objectClass=inetOrgPerson)", "memberOf"), 400)
	if err != nil {
		t.Fatal(err)
	}
	if want := dirsrvtest.BigGroupSize + 12; len(res.Entries) != want {
		t.Errorf("read %d users, want %d", len(res.Entries), want)
	}
	memberOf := map[string][]string{}
	for _, e := range res.Entries {
		memberOf[e.DN] = e.GetAttributeValues("memberOf")
	}
	for uid, want := range map[string][]string{
		"bob":   {"cn=platform," + dirsrvtest.Groups, "cn=engineering," + dirsrvtest.Groups},
		"frank": {"cn=legacy-ops," + dirsrvtest.Legacy},
		"gina":  nil,
		"dave":  nil,
	} {
		got := memberOf["uid="+uid+","+dirsrvtest.Users]
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: memberOf %q, want %q", uid, got, want)
		}
	}
	_, err = dial(t, s, dirsrvtest.Limited).SearchWithPaging(search(dirsrvtest.Users, "(objectClass=inetOrgPerson)", "mail"), 1000)
	if !ldap3.IsErrorWithCode(err, ldap3.LDAPResultSizeLimitExceeded) {
		t.Errorf("limited account, pages of 1000: %v, want the size limit", err)
	}
	_, err = dial(t, s, dirsrvtest.Limited).SearchWithPaging(search(dirsrvtest.Users, "(objectClass=inetOrgPerson)", "mail"), 200)
	if !ldap3.IsErrorWithCode(err, ldap3.LDAPResultAdminLimitExceeded) {
		t.Errorf("limited account, pages of 200: %v, want the look-through limit", err)
	}
	anon := dial(t, s, "")
	if res, err := anon.Search(search(dirsrvtest.Users, "(uid=alice)", "cn")); err != nil || len(res.Entries) != 0 {
		t.Errorf("anonymous: %v entries, err %v; want none", res, err)
	}
}

// dial binds to s over LDAPS, trusting the instance's CA, as dn (with the
// fixture's password), or anonymously when dn is empty.
func dial(t *testing.T, s *dirsrv.Server, dn string) *ldap3.Conn {
	t.Helper()
	pem, err := os.ReadFile(s.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("%s holds no certificate", s.CAFile)
	}
	conn, err := ldap3.DialURL(s.LDAPSURL, ldap3.DialWithTLSConfig(&tls.Config{RootCAs: pool, ServerName: dirsrv.HostName, MinVersion: tls.VersionTLS12}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if dn != "" {
		if err := conn.Bind(dn, dirsrvtest.AccountPassword); err != nil {
			t.Fatal(err)
		}
	}
	return conn
}

func search(base, filter string, attrs ...string) *ldap3.SearchRequest {
	return ldap3.NewSearchRequest(base, ldap3.ScopeWholeSubtree, ldap3.NeverDerefAliases, 0, 0, false, filter, attrs, nil)
}
