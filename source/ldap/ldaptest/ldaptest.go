// Package ldaptest lets tests outside source/ldap (the end-to-end tests of
// cmd/orgsync) start the real OpenLDAP slapd of source/ldap's own tests
// (internal/slapdtest), instead of writing a second helper.
package ldaptest

import (
	"testing"

	"github.com/orgsync/orgsync/source/ldap/internal/slapdtest"
)

// The plain account every test server has, able to read the directory.
const (
	ReaderDN       = slapdtest.ReaderDN
	ReaderPassword = slapdtest.ReaderPasswd
)

// StartSlapd starts slapd for t with the suffix dc=example,dc=com, the
// reader account and ldif loaded, and returns its ldap:// URL. The server
// stops when the test ends; without slapd the test is skipped (failed in
// CI), as slapdtest.Start does.
func StartSlapd(t testing.TB, ldif string) string {
	t.Helper()
	return slapdtest.Start(t, slapdtest.Options{LDIF: ldif}).URL
}
