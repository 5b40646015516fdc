// Package ldaptest lets tests outside source/ldap (the end-to-end tests of
// cmd/orgsync) start the real OpenLDAP slapd of source/ldap's own tests
// (internal/slapdtest), and check that Samba's domain controller
// (internal/sambatest) and 389 Directory Server (internal/dirsrvtest) can
// run, instead of writing second helpers.
package ldaptest

import (
	"testing"

	"github.com/orgsync/orgsync/source/ldap/internal/dirsrvtest"
	"github.com/orgsync/orgsync/source/ldap/internal/sambatest"
	"github.com/orgsync/orgsync/source/ldap/internal/slapdtest"
)

// StartSlapd starts slapd for t with ldif, the whole directory under
// dc=example,dc=com (the suffix entry first, as in
// examples/openldap/users.ldif), and returns its ldap:// URL. The server
// stops when the test ends; without slapd the test is skipped (failed in
// CI), as slapdtest.Start does.
func StartSlapd(t testing.TB, ldif string) string {
	t.Helper()
	return slapdtest.StartWhole(t, slapdtest.Options{LDIF: ldif}).URL
}

// RequireSlapd skips t when slapd is not installed, or fails it in CI
// (CI=true).
func RequireSlapd(t testing.TB) {
	t.Helper()
	slapdtest.Require(t)
}

// RequireSamba skips t when Samba's domain controller cannot run here (not
// installed, or not root), or fails it in CI (CI=true).
func RequireSamba(t testing.TB) {
	t.Helper()
	sambatest.Require(t)
}

// RequireDirsrv skips t when 389 Directory Server is not installed, or
// fails it in CI (CI=true).
func RequireDirsrv(t testing.TB) {
	t.Helper()
	dirsrvtest.Require(t)
}
