package slapd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	ldap3 "github.com/go-ldap/ldap/v3"

	"github.com/orgsync/orgsync/source/ldap/internal/slapdtest"
	"github.com/orgsync/orgsync/source/ldap/slapd"
)

// TestStartServesTheExampleDirectory loads the OpenLDAP example's
// directory, whole, and reads it back with its reader account; Stop may be
// called twice.
func TestStartServesTheExampleDirectory(t *testing.T) {
	t.Parallel()
	slapdtest.Require(t)
	ldif, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "openldap", "users.ldif"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := slapd.Start(slapd.Options{Dir: t.TempDir(), LDIF: string(ldif)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	conn, err := ldap3.DialURL(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Bind("cn=reader,dc=example,dc=com", "reader-secret"); err != nil {
		t.Fatal(err)
	}
	res, err := conn.Search(ldap3.NewSearchRequest("ou=people,dc=example,dc=com", ldap3.ScopeSingleLevel, ldap3.NeverDerefAliases,
		0, 0, false, "(objectClass=inetOrgPerson)", []string{"mail"}, nil))
	if err != nil || len(res.Entries) != 6 {
		t.Fatalf("people: %v, %v", res, err)
	}
	s.Stop()
	s.Stop()
}

// TestStartReportsABadDirectory: an LDIF without its suffix entry (the
// mistake the example once had) fails with slapadd's words.
func TestStartReportsABadDirectory(t *testing.T) {
	t.Parallel()
	slapdtest.Require(t)
	_, err := slapd.Start(slapd.Options{Dir: t.TempDir(), LDIF: "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\nou: people\n"})
	if err == nil || !strings.Contains(err.Error(), "slapadd") {
		t.Fatalf("want a slapadd error, got %v", err)
	}
}
