package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/store"
	"github.com/orgsync/orgsync/internal/store/snapshot"
	"github.com/orgsync/orgsync/internal/util/memlimit"
	"github.com/orgsync/orgsync/target/umsim/gate"
)

// TestKilledForMemoryLosesNothing: a 200,000-member organization synced
// with incremental runs, whose removals wait for approval; then 1,000
// users change. A sync given too little memory is killed, as a
// container's limit kills it: under an address-space limit just above
// what orgsync needs to start (the Go runtime cannot grow its heap and
// stops the process; GOMEMLIMIT cannot bend that limit), and in a memory
// cgroup of its own where the system lets the test make one (the kernel
// kills the process). After each kill the approval is pending as it was
// and the snapshot loads; the same sync with enough memory then applies
// the 1,000 changes, and the changes held stay held.
func TestKilledForMemoryLosesNothing(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("memory limits of a process are tested on Linux")
	}
	t.Parallel()
	notGolden(t)
	const users, unmatched = 200_000, 100
	dir := exampleDir(t)
	sim := startBigSim(t, bigOrg(t, dir, users), gate.Limits{})
	cfg := writeBigConfig(t, dir, "big.yaml", sim.url, "{reads: 100000, requests: 100000}", true)
	appendTo(t, cfg, "safety: {maxRemovals: 10}\n")
	writeBigCSV(t, dir, users-unmatched, 0) // the last 100 members lose their groups: held for approval
	mustRunFor(t, exitOK, "sync", "--config", cfg)
	state := filepath.Join(dir, "csv", "state")
	held := pendingApproval(t, state, unmatched)

	writeBigCSV(t, dir, users-unmatched, 1000) // 1,000 more users change
	for _, kill := range memoryKillers(t) {
		sent := sim.Stats().Count(gate.EndpointAction, 200)
		r := kill.run(t, "sync", "--config", cfg)
		t.Logf("%s: the last lines before the kill:\n%s", kill.name, lastLines(r.stderr, `"level"`, 3))
		if !kill.killed(r) || !strings.Contains(r.stderr, `"msg":"memory: `) {
			t.Fatalf("%s: the sync did not start, or was not killed for memory: exit %d\n%.3000s", kill.name, r.code, r.stderr)
		}
		if again := pendingApproval(t, state, unmatched); again.ID != held.ID {
			t.Errorf("%s: after the kill the pending approval is %s, want %s", kill.name, again.ID, held.ID)
		}
		if snap, err := snapshot.Open(state).Load("default"); err != nil || snap.Users.Len() != users {
			t.Fatalf("%s: after the kill the snapshot: %v", kill.name, err)
		}
		// A run killed after it sent something leaves the marker that makes
		// the next run read the whole organization.
		_, marked, err := snapshot.Open(state).Sending("default")
		if now := sim.Stats().Count(gate.EndpointAction, 200); err != nil || marked != (now > sent) {
			t.Errorf("%s: %d action requests sent before the kill, sending marker %v (%v)", kill.name, now-sent, marked, err)
		}
	}
	if r := mustRunFor(t, exitOK, "sync", "--config", cfg); strings.Contains(r.stderr, "cannot be read") || !strings.Contains(r.stderr, `"update":1000`) {
		t.Errorf("the sync after the kills:\n%.3000s", r.stderr)
	}
	for _, n := range []int{1000, 1999} {
		if u, ok := sim.userByEmail(bigEmail(n)); !ok || u.LastName != "Changed"+strconv.Itoa(n) {
			t.Errorf("%s after the sync: %+v", bigEmail(n), u)
		}
	}
	if again := pendingApproval(t, state, unmatched); again.ID != held.ID {
		t.Errorf("after the sync the pending approval is %s, want %s", again.ID, held.ID)
	}
	if u, _ := sim.userByEmail(bigEmail(users - 1)); len(u.Groups) == 0 {
		t.Error("a held removal was applied")
	}
}

// mustRunFor runs orgsync with the time a big organization takes and
// fails unless it exits with code.
func mustRunFor(t *testing.T, code int, args ...string) result {
	t.Helper()
	r := runBinaryFor(t, 5*time.Minute, nil, args...)
	if r.code != code {
		t.Fatalf("orgsync %s: exit %d, want %d\n%s\n%.3000s", strings.Join(args, " "), r.code, code, r.stdout, r.stderr)
	}
	return r
}

// appendTo appends text to the file at path.
func appendTo(t *testing.T, path, text string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, text...), 0o600); err != nil {
		t.Fatal(err)
	}
}

// pendingApproval is the one pending approval of the state directory,
// holding n changes.
func pendingApproval(t *testing.T, state string, n int) store.Approval {
	t.Helper()
	d, err := store.Open(state, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	list, err := d.Approvals("", store.Pending)
	if err != nil || len(list) != 1 || len(list[0].Changes) != n {
		for _, a := range list {
			t.Logf("approval %s: %d changes, %s", a.ID, len(a.Changes), a.Reason)
		}
		t.Fatalf("pending approvals: %v (%d), want one of %d changes", err, len(list), n)
	}
	return list[0]
}

// userByEmail is the simulator's user with that email.
func (s *bigSim) userByEmail(email string) (u struct {
	LastName string
	Groups   []string
}, found bool) {
	for _, su := range s.Snapshot().Users {
		if strings.EqualFold(su.Email, email) {
			u.LastName, u.Groups = su.LastName, su.Groups
			return u, true
		}
	}
	return u, false
}

// memoryKiller runs orgsync with too little memory.
type memoryKiller struct {
	name   string
	run    func(t *testing.T, args ...string) result
	killed func(r result) bool
}

// memoryKillers are the ways this system lets the test starve orgsync
// of memory: a cgroup of its own, when one can be made here, and an
// address-space limit.
func memoryKillers(t *testing.T) []memoryKiller {
	var out []memoryKiller
	if cg, err := newMemoryCgroup(t, 40<<20); err == nil {
		out = append(out, memoryKiller{name: "a memory cgroup of 40 MiB (" + cg + ")", run: inCgroup(cg),
			killed: func(r result) bool { return r.signal == syscall.SIGKILL }})
	} else {
		t.Logf("no memory cgroup of the test's own (%v): the address-space limit only", err)
	}
	// Out of address space, the runtime stops on a heap that cannot grow or
	// a thread it cannot make.
	return append(out, memoryKiller{name: "an address-space limit", run: underAddressLimit, killed: func(r result) bool {
		return r.code == 2 && (strings.Contains(r.stderr, "fatal error: ") || strings.Contains(r.stderr, "pthread_create failed"))
	}})
}

// underAddressLimit runs orgsync with its address space limited to about
// the least it starts with: its heap cannot grow much. The least is found
// by trying, 50 MiB at a time; while a run stops before it started (the
// runtime's threads need more room on a busy machine), it is tried again
// with 16 MiB more.
func underAddressLimit(t *testing.T, args ...string) result {
	kib := 800 << 10
	for limitedRun(t, kib, "version").code != exitOK {
		if kib += 50 << 10; kib > 4<<20 {
			t.Fatal("orgsync does not start under an address-space limit of 4 GiB")
		}
	}
	for range 8 {
		r := limitedRun(t, kib, args...)
		if strings.Contains(r.stderr, `"msg":"memory: `) {
			return r
		}
		kib += 16 << 10
	}
	t.Fatal("orgsync did not start under an address-space limit: the test cannot starve it")
	return result{}
}

// limitedRun runs orgsync with its address space limited to kib KiB.
func limitedRun(t *testing.T, kib int, args ...string) result {
	return shellRun(t, fmt.Sprintf(`ulimit -v %d && exec "$0" "$@"`, kib), args...)
}

// inCgroup runs orgsync in the memory cgroup at dir.
func inCgroup(dir string) func(t *testing.T, args ...string) result {
	return func(t *testing.T, args ...string) result {
		return shellRun(t, fmt.Sprintf(`echo $$ > %s && exec "$0" "$@"`, filepath.Join(dir, "cgroup.procs")), args...)
	}
}

// shellRun runs orgsync with args through sh -c script (which execs it).
func shellRun(t *testing.T, script string, args ...string) result {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"-c", script, binary}, args...)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(5 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("orgsync %s: timed out", strings.Join(args, " "))
	}
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		r.code = exit.ExitCode()
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.signal = ws.Signal()
		}
	}
	return r
}

// newMemoryCgroup makes a memory cgroup of limit bytes under the test
// process's own (v1, or v2 with the memory controller given to its
// children), removed when the test ends.
func newMemoryCgroup(t *testing.T, limit int) (string, error) {
	groups, err := memlimit.Cgroups("/")
	if err != nil {
		return "", err
	}
	for _, g := range groups {
		dir := filepath.Join(g.Dir, fmt.Sprintf("orgsync-test-%d", os.Getpid()))
		if err := os.Mkdir(dir, 0o755); err != nil {
			continue
		}
		t.Cleanup(func() { _ = os.Remove(dir) })
		if err := os.WriteFile(filepath.Join(dir, g.LimitFile), []byte(strconv.Itoa(limit)), 0o644); err != nil {
			continue // v2 without the memory controller for the children
		}
		if !g.V2 { // no swapping out of the limit
			_ = os.WriteFile(filepath.Join(dir, "memory.memsw.limit_in_bytes"), []byte(strconv.Itoa(limit)), 0o644)
		}
		return dir, nil
	}
	return "", errors.New("none can be made here")
}

// lastLines are the last n lines of text that hold mark.
func lastLines(text, mark string, n int) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, mark) {
			out = append(out, l)
		}
	}
	return strings.Join(out[max(0, len(out)-n):], "\n")
}
