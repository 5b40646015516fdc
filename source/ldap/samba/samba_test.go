package samba_test

import (
	"net"
	"os"
	"strings"
	"testing"

	ldap3 "github.com/go-ldap/ldap/v3"

	"github.com/orgsync/orgsync/source/ldap/internal/sambatest"
)

func TestMain(m *testing.M) { os.Exit(sambatest.Main(m)) }

// TestDomainServesTheFixture: the domain controller starts while the
// machine's ports 389, 636 and 88 are held (as a directory server of the
// machine holds them); the service account binds over LDAPS with its user
// principal name and reads the fixture; a simple bind over plain LDAP is
// refused, as Active Directory refuses it by default.
func TestDomainServesTheFixture(t *testing.T) {
	t.Parallel()
	for _, port := range []string{"389", "636", "88"} {
		if l, err := net.Listen("tcp", ":"+port); err == nil { // else something holds it already
			t.Cleanup(func() { l.Close() })
		}
	}
	srv := sambatest.Domain(t)
	conn, err := srv.Admin()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	res, err := conn.SearchWithPaging(ldap3.NewSearchRequest(sambatest.Bulk, ldap3.ScopeSingleLevel, ldap3.NeverDerefAliases,
		0, 0, false, "(objectClass=user)", []string{"mail"}, nil), 500)
	if err != nil || len(res.Entries) != sambatest.BigGroupSize {
		t.Fatalf("bulk users: %d, %v", len(res.Entries), err)
	}
	plain, err := ldap3.DialURL(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if err := plain.Bind(sambatest.ServiceUPN, sambatest.ServicePass); err == nil || !strings.Contains(err.Error(), "Transport encryption required") {
		t.Fatalf("simple bind over plain LDAP: %v, want it refused", err)
	}
}
