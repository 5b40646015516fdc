package all_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestProductPackagesLinkNoFakes: the configuration (which lists the
// source kinds) and the run link no fake of a vendor's service, no
// throwaway directory server or its harness, no network-namespace helper
// and no httptest: the demo registers those on its own side.
func TestProductPackagesLinkNoFakes(t *testing.T) {
	t.Parallel()
	for _, pkg := range []string{"github.com/orgsync/orgsync/config", "github.com/orgsync/orgsync/internal/run"} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 {
			t.Fatalf("go list -deps %s lists %d packages", pkg, len(deps))
		}
		for _, dep := range deps {
			if forbidden(dep) {
				t.Errorf("%s links %s", pkg, dep)
			}
		}
	}
}

// forbidden reports whether a package is a fake, a test harness or test
// tooling.
func forbidden(pkg string) bool {
	if !strings.HasPrefix(pkg, "github.com/orgsync/orgsync/") {
		return pkg == "net/http/httptest" // the standard library's test helpers of its own (internal/synctest) are not ours
	}
	last := pkg[strings.LastIndex(pkg, "/")+1:]
	switch {
	case strings.HasSuffix(last, "fake"), strings.HasSuffix(last, "test"), strings.HasSuffix(last, "demo"):
		return true // entrafake, sourcetest, slapdtest, ldapdemo...
	case last == "fakeapi", last == "netns", last == "serverproc":
		return true
	case strings.HasSuffix(pkg, "/source/ldap/slapd"), strings.HasSuffix(pkg, "/source/ldap/samba"), strings.HasSuffix(pkg, "/source/ldap/dirsrv"):
		return true
	}
	return false
}
