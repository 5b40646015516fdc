//go:build unix

package changecontrol

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// The helper process of TestApproveKilledAtEachStep: approve the
// approval of the configuration named by these variables, killed (a real
// SIGKILL, from itself) before the write of step number crashAtEnv.
const (
	crashAtEnv     = "ORGSYNC_TEST_CRASH_AT"
	crashConfigEnv = "ORGSYNC_TEST_CRASH_CONFIG"
	crashIDEnv     = "ORGSYNC_TEST_CRASH_APPROVAL"
)

// TestApproveKilledAtEachStep: an approve killed (SIGKILL, a real child
// process) before each of its writes to the state directory is recovered
// by the next command that touches the approval (here the listing of
// approve): what the service confirmed is in the history, the approval is
// approved or pending again with the rest, nothing of the apply is left
// behind, and the recovery is told.
func TestApproveKilledAtEachStep(t *testing.T) {
	t.Parallel()
	if at := os.Getenv(crashAtEnv); at != "" {
		k, _ := strconv.Atoi(at)
		var n int
		var mu sync.Mutex
		_, _ = approveWith(t, os.Getenv(crashConfigEnv), os.Getenv(crashIDEnv), zap.NewNop(), func(string) error {
			mu.Lock()
			defer mu.Unlock()
			if n++; n == k {
				_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
				select {} // killed
			}
			return nil
		})
		fmt.Println("the approve ended before its step", k)
		return
	}
	names := steps(t)
	t.Logf("the steps of an approve: %s", strings.Join(names, ", "))
	for k := 1; k <= len(names); k++ {
		t.Run(fmt.Sprintf("%d %s", k, names[k-1]), func(t *testing.T) {
			path, sim, id := heldFixture(t)
			cmd := exec.Command(os.Args[0], "-test.run", "^TestApproveKilledAtEachStep$")
			cmd.Env = append(os.Environ(), crashAtEnv+"="+strconv.Itoa(k), crashConfigEnv+"="+path, crashIDEnv+"="+id)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("the approve was not killed at step %d: %v\n%s", k, err, out)
			}
			core, logs := observer.New(zapcore.InfoLevel)
			c := New(load(t, path), zap.New(core))
			if _, err := c.Pending(); err != nil {
				t.Fatalf("the listing after the kill: %v", err)
			}
			checkRecovered(t, c.StateDir(), sim, id)
			journaled := k > 2 // the journal is in place once its claim is written
			if told := len(logs.FilterMessageSnippet("was interrupted while being applied").All()); told != 1 && journaled || told != 0 && !journaled {
				t.Errorf("the recovery told %d times (the journal was in place: %v): %v", told, journaled, logs.All())
			}
		})
	}
}
