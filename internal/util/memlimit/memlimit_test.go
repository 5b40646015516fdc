package memlimit

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// fakeRoot makes a root folder with the files given (path: content).
func fakeRoot(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const (
	v2Mount     = "29 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
	hybridMount = "34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n" +
		"40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
	gib = 1 << 30
)

func TestContainer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		files  map[string]string
		limit  uint64
		source string
	}{
		{"cgroup v2 in a container (its cgroup is its root)", map[string]string{
			"proc/self/cgroup": "0::/\n", "proc/self/mountinfo": v2Mount, "sys/fs/cgroup/memory.max": "1073741824\n"},
			gib, "/sys/fs/cgroup/memory.max"},
		{"cgroup v2 without a limit", map[string]string{
			"proc/self/cgroup": "0::/\n", "proc/self/mountinfo": v2Mount, "sys/fs/cgroup/memory.max": "max\n"}, 0, ""},
		{"cgroup v2, a systemd unit under a slice with a lower limit", map[string]string{
			"proc/self/cgroup": "0::/system.slice/orgsync.service\n", "proc/self/mountinfo": v2Mount,
			"sys/fs/cgroup/system.slice/orgsync.service/memory.max": "2147483648\n",
			"sys/fs/cgroup/system.slice/memory.max":                 "1073741824\n"},
			gib, "/sys/fs/cgroup/system.slice/memory.max"},
		{"cgroup v1 (hybrid: no memory controller in v2)", map[string]string{
			"proc/self/cgroup":    "12:pids:/pod\n4:memory:/kubepods/pod1/abc\n0::/\n",
			"proc/self/mountinfo": hybridMount,
			"sys/fs/cgroup/memory/kubepods/pod1/abc/memory.limit_in_bytes": "536870912\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes":                   "9223372036854771712\n"},
			gib / 2, "/sys/fs/cgroup/memory/kubepods/pod1/abc/memory.limit_in_bytes"},
		{"cgroup v1 without a limit", map[string]string{
			"proc/self/cgroup": "4:memory:/\n", "proc/self/mountinfo": hybridMount,
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n"}, 0, ""},
		{"cgroup v1, a container seeing its own cgroup as the mount's root", map[string]string{
			"proc/self/cgroup":                           "4:memory:/docker/abc\n",
			"proc/self/mountinfo":                        "34 30 0:31 /docker/abc /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "268435456\n"},
			gib / 4, "/sys/fs/cgroup/memory/memory.limit_in_bytes"},
		{"no /proc (not Linux)", map[string]string{}, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			limit, source, problem := Container(fakeRoot(t, tc.files))
			if limit != tc.limit || source != tc.source || problem != "" {
				t.Errorf("Container = %d, %q, %q; want %d, %q", limit, source, problem, tc.limit, tc.source)
			}
		})
	}
}

// TestSet: the Go memory limit is Share of the container's, unless
// GOMEMLIMIT is set; none without a container limit. (Not parallel: the
// memory limit is the process's.)
func TestSet(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	container := fakeRoot(t, map[string]string{
		"proc/self/cgroup": "0::/\n", "proc/self/mountinfo": v2Mount, "sys/fs/cgroup/memory.max": "1073741824\n"})
	none := func(string) string { return "" }

	d := Set(container, none)
	share := Share
	if want := int64(gib * share); d.Limit != want || debug.SetMemoryLimit(-1) != want || d.FromEnv || d.Bound() != gib {
		t.Errorf("with a container limit of 1 GiB: %+v (runtime: %d)", d, debug.SetMemoryLimit(-1))
	}
	if got := d.String(); got != "Go memory limit 819 MiB: 80% of the container's limit of 1024 MiB (/sys/fs/cgroup/memory.max)" {
		t.Errorf("said %q", got)
	}

	debug.SetMemoryLimit(300 << 20) // as the runtime does for GOMEMLIMIT=300MiB
	d = Set(container, func(k string) string { return map[string]string{"GOMEMLIMIT": "300MiB"}[k] })
	if d.Limit != 300<<20 || !d.FromEnv || debug.SetMemoryLimit(-1) != 300<<20 || !strings.Contains(d.String(), "300 MiB from GOMEMLIMIT") {
		t.Errorf("with GOMEMLIMIT: %+v, %s", d, d)
	}

	debug.SetMemoryLimit(before)
	d = Set(fakeRoot(t, map[string]string{"proc/self/cgroup": "0::/\n", "proc/self/mountinfo": v2Mount}), none)
	if d.Limit != 0 || d.Bound() != 0 || debug.SetMemoryLimit(-1) != before || !strings.HasPrefix(d.String(), "no Go memory limit") {
		t.Errorf("without a container limit: %+v, %s", d, d)
	}
}

// TestCgroups: the folder of the process's memory cgroup in each
// hierarchy, as the system shows it.
func TestCgroups(t *testing.T) {
	t.Parallel()
	root := fakeRoot(t, map[string]string{
		"proc/self/cgroup":    "12:pids:/pod\n4:memory:/kubepods/pod1/abc\n0::/user.slice\n",
		"proc/self/mountinfo": hybridMount,
	})
	got, err := Cgroups(root)
	if err != nil || len(got) != 2 {
		t.Fatalf("Cgroups = %+v, %v", got, err)
	}
	if g := got[0]; g.Dir != "/sys/fs/cgroup/memory/kubepods/pod1/abc" || g.LimitFile != "memory.limit_in_bytes" || g.V2 {
		t.Errorf("v1: %+v", g)
	}
	if g := got[1]; g.Dir != "/sys/fs/cgroup/unified/user.slice" || g.LimitFile != "memory.max" || !g.V2 {
		t.Errorf("v2: %+v", g)
	}
}
