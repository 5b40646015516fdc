// Package testenv is what a test needs from the machine it runs on: an
// external program or server (slapd, Samba, 389 Directory Server,
// Chromium, promtool, kinit, the packaging tools...) or root. When one is
// missing the test fails in CI (CI=true), where every test must run, and
// is skipped elsewhere; either way the message names the Debian package
// that has it and says that `make test-deps` installs it.
//
// Only tests import this package: it is not linked into orgsync.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// InCI reports whether the tests run in CI (CI=true), where a test may not
// be skipped for want of a program.
func InCI() bool { return os.Getenv("CI") == "true" }

// Missing ends t because what it needs is missing: why says what (and
// deb, when not empty, is the Debian package that has it). It fails t in
// CI and skips it elsewhere.
func Missing(t testing.TB, why, deb string) {
	t.Helper()
	msg := why
	if deb != "" {
		msg += fmt.Sprintf(": install Debian's package %s (make test-deps installs it)", deb)
	}
	if InCI() {
		t.Fatalf("%s; CI=true: this test must run here", msg)
	}
	t.Skip(msg)
}

// Installed ends t (see Missing) when err, the error of a harness that
// looked for its server, is not nil.
func Installed(t testing.TB, err error, deb string) {
	t.Helper()
	if err != nil {
		Missing(t, err.Error(), deb)
	}
}

// sbin are the directories of system programs that a user's PATH may lack.
var sbin = []string{"/usr/sbin", "/sbin"}

// Program returns the path of the first of names installed (on PATH, else
// in /usr/sbin or /sbin); when none is, it ends t (see Missing), naming
// the Debian package deb.
func Program(t testing.TB, deb string, names ...string) string {
	t.Helper()
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
		for _, dir := range sbin {
			p := filepath.Join(dir, name)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				return p
			}
		}
	}
	Missing(t, fmt.Sprintf("%s is not installed", names[0]), deb)
	return ""
}

// Root ends t (see Missing) unless the test runs as root; why says what
// needs it.
func Root(t testing.TB, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		Missing(t, why+" needs root: run the tests as root", "")
	}
}
