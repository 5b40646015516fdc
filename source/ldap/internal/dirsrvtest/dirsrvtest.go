// Package dirsrvtest starts a real 389 Directory Server (package dirsrv)
// for tests: by default FreeIPA's tree (Fixture), each test its own copy
// of an instance made once and cached, on its own loopback ports, stopped
// when the test ends.
//
// When 389 Directory Server is not installed, Start skips the test, except
// in CI (CI=true), where it fails it: the 389 Directory Server tests must
// run there.
package dirsrvtest

import (
	"testing"

	"github.com/orgsync/orgsync/internal/util/testenv"
	"github.com/orgsync/orgsync/source/ldap/dirsrv"
)

// Start starts a server for t holding Fixture, with FreeIPA's memberOf
// plugin on and the fixture's limits (SizeLimit, LookThroughLimit), and
// stops it at cleanup.
func Start(t testing.TB) *dirsrv.Server {
	t.Helper()
	return StartWith(t, dirsrv.Options{LDIF: Fixture(), MemberOf: true, SizeLimit: SizeLimit, LookThroughLimit: LookThroughLimit})
}

// StartWith starts a server for t with opt (its Dir and CacheDir set
// here), and stops it at cleanup.
func StartWith(t testing.TB, opt dirsrv.Options) *dirsrv.Server {
	t.Helper()
	Require(t)
	opt.Dir, opt.CacheDir = t.TempDir(), dirsrv.CacheDir()
	s, err := dirsrv.Start(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// Require skips t when 389 Directory Server is not installed, or fails it
// in CI (CI=true), where its tests must run.
func Require(t testing.TB) {
	t.Helper()
	testenv.Installed(t, dirsrv.Find(), "389-ds-base")
}
