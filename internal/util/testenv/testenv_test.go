package testenv_test

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/util/testenv"
)

// childEnv marks the child process of TestMissingFailsInCIAndSkipsElsewhere.
const childEnv = "ORGSYNC_TESTENV_CHILD"

// TestMissingFailsInCIAndSkipsElsewhere runs a test that needs a program
// no machine has in a child process: with CI=true it fails, elsewhere
// (CI unset, or anything but true) it is skipped; both say which Debian
// package has the program and that make test-deps installs it.
func TestMissingFailsInCIAndSkipsElsewhere(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ci      string
		fails   bool
		outcome string
	}{{"true", true, "--- FAIL: TestNeedsAMissingProgram"}, {"", false, "--- SKIP: TestNeedsAMissingProgram"}, {"false", false, "--- SKIP: TestNeedsAMissingProgram"}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestNeedsAMissingProgram$", "-test.v")
		cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "CI=") }), childEnv+"=1")
		if c.ci != "" {
			cmd.Env = append(cmd.Env, "CI="+c.ci)
		}
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if failed := errors.As(err, &exit); failed != c.fails || (err != nil && !failed) {
			t.Errorf("CI=%q: %v, want failed %v\n%s", c.ci, err, c.fails, out)
		}
		for _, want := range []string{c.outcome, "orgsync-no-such-program is not installed: install Debian's package orgsync-no-such-package (make test-deps installs it)"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("CI=%q: output lacks %q:\n%s", c.ci, want, out)
			}
		}
	}
}

// TestNeedsAMissingProgram is run by TestMissingFailsInCIAndSkipsElsewhere
// in a child process.
func TestNeedsAMissingProgram(t *testing.T) {
	t.Parallel()
	if os.Getenv(childEnv) == "" {
		t.Skip("run by TestMissingFailsInCIAndSkipsElsewhere in a child process")
	}
	testenv.Program(t, "orgsync-no-such-package", "orgsync-no-such-program")
	t.Log("the test went on without its program")
}

// TestProgramFindsAnInstalledOne: the path of the first name installed is
// returned, and Installed lets a test with no error go on.
func TestProgramFindsAnInstalledOne(t *testing.T) {
	t.Parallel()
	want, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	if got := testenv.Program(t, "dash", "orgsync-no-such-program", "sh"); got != want {
		t.Errorf("Program = %q, want %q", got, want)
	}
	testenv.Installed(t, nil, "slapd")
}

// TestRefusedAddrRefusesUntilTheEnd: a connection to the address is
// refused, and a server cannot take its port while the test runs.
func TestRefusedAddrRefusesUntilTheEnd(t *testing.T) {
	t.Parallel()
	addr := testenv.RefusedAddr(t)
	for range 3 {
		if c, err := net.DialTimeout("tcp", addr, 5*time.Second); !errors.Is(err, syscall.ECONNREFUSED) {
			if c != nil {
				c.Close()
			}
			t.Fatalf("dial %s: %v, want the connection refused", addr, err)
		}
	}
	if ln, err := net.Listen("tcp", addr); err == nil {
		ln.Close()
		t.Errorf("a server took %s meanwhile", addr)
	}
}
