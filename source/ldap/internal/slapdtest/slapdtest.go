// Package slapdtest starts a real OpenLDAP slapd (package slapd) for tests:
// the suffix entry and a reader account, then the test's LDIF fixture. The
// server is stopped when the test ends.
//
// When slapd is not installed, Start skips the test, except in CI
// (CI=true), where it fails it: the LDAP tests must run there.
package slapdtest

import (
	"testing"

	"github.com/orgsync/orgsync/internal/util/testenv"
	"github.com/orgsync/orgsync/source/ldap/slapd"
)

// Fixed identities of every test server.
const (
	Suffix       = slapd.Suffix
	RootDN       = slapd.RootDN
	RootPassword = slapd.RootPassword
	ReaderDN     = "cn=reader," + Suffix // a plain account, subject to the size limit
	ReaderPasswd = "reader-secret"
)

// Options configure one server: slapd's options but LDIF, the fixture,
// which is loaded after the suffix entry and the reader account (which
// Start writes itself).
type Options = slapd.Options

// Start starts a server for t with the suffix entry, the reader account
// and opt.LDIF, and stops it at cleanup.
func Start(t testing.TB, opt Options) *slapd.Server {
	t.Helper()
	opt.LDIF = baseLDIF + "\n" + opt.LDIF
	return StartWhole(t, opt)
}

// StartWhole is Start for an LDIF that holds the whole directory, the
// suffix entry first.
func StartWhole(t testing.TB, opt Options) *slapd.Server {
	t.Helper()
	Require(t)
	opt.Dir = t.TempDir()
	s, err := slapd.Start(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// Require skips t when slapd is not installed, or fails it in CI
// (CI=true), where the LDAP tests must run.
func Require(t testing.TB) {
	t.Helper()
	_, err := slapd.Find()
	testenv.Installed(t, err, "slapd")
}

// baseLDIF is the suffix entry and the reader account.
const baseLDIF = `dn: ` + Suffix + `
objectClass: dcObject
objectClass: organization
dc: example
o: Example

dn: ` + ReaderDN + `
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: reader
userPassword: ` + ReaderPasswd + `
`
