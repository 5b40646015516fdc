package migrate

import (
	"os"
	"strings"
	"testing"

	ldap3 "github.com/go-ldap/ldap/v3"

	"github.com/orgsync/orgsync/source/ldap/slapd"
)

// ldapDirectory is the test slapd both tools read: the directory of
// testdata/directory (directory.ldif), with the groups of groups.ldif
// added over LDAP so that the memberof overlay keeps memberOf.
type ldapDirectory struct {
	url string
}

// startDirectory starts the test directory for t; without slapd the test
// is skipped (failed in CI, where the LDAP tests must run).
func startDirectory(t *testing.T) *ldapDirectory {
	t.Helper()
	if _, err := slapd.Find(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v: run scripts/test-deps.sh (CI must run the LDAP tests)", err)
		}
		t.Skipf("%v: run scripts/test-deps.sh", err)
	}
	ldif, err := os.ReadFile("testdata/directory/directory.ldif")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := slapd.Start(slapd.Options{Dir: t.TempDir(), LDIF: string(ldif), MemberOf: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	d := &ldapDirectory{url: srv.URL}
	conn, err := ldap3.DialURL(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Bind(slapd.RootDN, slapd.RootPassword); err != nil {
		t.Fatal(err)
	}
	groups, err := os.ReadFile("testdata/directory/groups.ldif")
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range strings.Split(string(groups), "\n\n") {
		add := addRequest(block)
		if add == nil {
			continue
		}
		if err := conn.Add(add); err != nil {
			t.Fatalf("adding %s: %v", add.DN, err)
		}
	}
	return d
}

// addRequest reads one LDIF entry (no continuation lines) as an add.
func addRequest(block string) *ldap3.AddRequest {
	var add *ldap3.AddRequest
	attrs := map[string][]string{}
	var order []string
	for _, l := range strings.Split(block, "\n") {
		k, v, ok := strings.Cut(l, ": ")
		if !ok || strings.HasPrefix(l, "#") {
			continue
		}
		if k == "dn" {
			add = ldap3.NewAddRequest(v, nil)
			continue
		}
		if _, seen := attrs[k]; !seen {
			order = append(order, k)
		}
		attrs[k] = append(attrs[k], v)
	}
	if add == nil {
		return nil
	}
	for _, k := range order {
		add.Attribute(k, attrs[k])
	}
	return add
}

// conn is a connection bound as the reader account.
func (d *ldapDirectory) conn(t *testing.T) *ldap3.Conn {
	t.Helper()
	c, err := ldap3.DialURL(d.url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Bind("cn=reader,dc=example,dc=com", "reader-secret"); err != nil {
		t.Fatal(err)
	}
	return c
}
