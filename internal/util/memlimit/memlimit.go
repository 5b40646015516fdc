// Package memlimit gives the Go runtime the memory limit of the container
// orgsync runs in. Go's collector does not know the limit a cgroup sets
// (the memory of a Kubernetes pod, a systemd unit's MemoryMax): left
// alone, it lets the heap grow to twice what is live, and the kernel
// kills the process when that crosses the limit. With a soft memory
// limit (runtime/debug.SetMemoryLimit, what GOMEMLIMIT sets) below the
// container's, the collector works harder as the heap comes near it
// instead.
//
// At start, Set reads the limit of the process's cgroup (v2: memory.max;
// v1: memory.limit_in_bytes; the lowest along the path from the process's
// cgroup to the root of the hierarchy) and gives Share of it to the Go
// runtime, unless GOMEMLIMIT is set, which then wins.
package memlimit

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
)

// Share is the part of the container's memory limit given to the Go
// runtime as its soft limit. The rest is for what the runtime does not
// count (the program's code, memory it has freed but not yet returned)
// and for the kernel's own use of the cgroup (page cache of the files the
// run writes, which it reclaims first).
const Share = 0.80

// Decision is what Set found and did.
type Decision struct {
	// Container is the container's memory limit in bytes, 0 when none was
	// found; Source the file it was read from.
	Container uint64
	Source    string
	// Limit is the Go runtime's memory limit in bytes, as set (from
	// Container or GOMEMLIMIT), 0 when there is none.
	Limit int64
	// FromEnv is set when GOMEMLIMIT set Limit.
	FromEnv bool
	// Problem is why the container's limit could not be read, if it could
	// not (the process then runs without a limit of its own).
	Problem string
}

// String says what was decided, for the log.
func (d Decision) String() string {
	switch {
	case d.FromEnv:
		return fmt.Sprintf("Go memory limit %s from GOMEMLIMIT", MiB(uint64(d.Limit)))
	case d.Limit > 0:
		return fmt.Sprintf("Go memory limit %s: %.0f%% of the container's limit of %s (%s)", MiB(uint64(d.Limit)), Share*100, MiB(d.Container), d.Source)
	case d.Problem != "":
		return "no Go memory limit: " + d.Problem
	}
	return "no Go memory limit: no container memory limit found (GOMEMLIMIT sets one)"
}

// Bound is the memory the process should stay under: the container's
// limit when known, else the Go memory limit (0 when neither is).
func (d Decision) Bound() uint64 {
	if d.Container > 0 {
		return d.Container
	}
	return uint64(max(d.Limit, 0))
}

// MiB writes a number of bytes in MiB.
func MiB(n uint64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

// Set gives the Go runtime Share of the container's memory limit, read
// under root ("/" but in tests), unless getenv("GOMEMLIMIT") is set (the
// runtime read it already).
func Set(root string, getenv func(string) string) Decision {
	var d Decision
	d.Container, d.Source, d.Problem = Container(root)
	if getenv("GOMEMLIMIT") != "" {
		d.Limit, d.FromEnv = debug.SetMemoryLimit(-1), true
		if d.Limit == math.MaxInt64 { // GOMEMLIMIT=off
			d.Limit = 0
		}
		return d
	}
	if d.Container > 0 {
		d.Limit = int64(float64(d.Container) * Share)
		debug.SetMemoryLimit(d.Limit)
	}
	return d
}

// unlimited is a limit so large that it is none (cgroup v1 writes
// "no limit" as the largest page-aligned 64-bit number).
const unlimited = 1 << 62

// Container returns the memory limit of the cgroup of the process, in
// bytes, read under root, and the file that set it; 0 when none is set
// (problem says why it could not be read, when it could not).
func Container(root string) (limit uint64, source, problem string) {
	groups, err := Cgroups(root)
	if err != nil {
		return 0, "", err.Error()
	}
	for _, g := range groups {
		if l, src := lowest(root, g); l > 0 && (limit == 0 || l < limit) {
			limit, source = l, src
		}
	}
	return limit, source, ""
}

// Cgroup is the memory cgroup of the process in one hierarchy: the
// folder of its cgroup, as seen under root, and the name of its limit
// file there.
type Cgroup struct {
	Dir, LimitFile string
	// V2 is set for the unified hierarchy (cgroup v2).
	V2 bool
	// mount is the folder the hierarchy is mounted at.
	mount string
}

// Cgroups returns the memory cgroups of the process (v2's and v1's
// memory controller's), read under root; none outside Linux.
func Cgroups(root string) ([]Cgroup, error) {
	groups, err := os.ReadFile(filepath.Join(root, "proc/self/cgroup"))
	if err != nil {
		return nil, nil // not Linux, or no /proc: no cgroup
	}
	mounts, err := readMounts(filepath.Join(root, "proc/self/mountinfo"))
	if err != nil {
		return nil, err
	}
	var out []Cgroup
	for _, line := range strings.Split(string(groups), "\n") {
		// hierarchy-ID:controllers:path; v2 is "0::path".
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		g := Cgroup{LimitFile: "memory.limit_in_bytes"}
		m := mounts.v1
		switch {
		case parts[0] == "0" && parts[1] == "":
			g.LimitFile, g.V2, m = "memory.max", true, mounts.v2
		case !hasField(parts[1], "memory"):
			continue
		}
		if m == nil {
			continue
		}
		rel, ok := strings.CutPrefix(path.Clean(parts[2]), m.root)
		if !ok || rel != "" && rel[0] != '/' {
			continue // the cgroup is outside what is mounted here
		}
		g.mount, g.Dir = m.point, path.Join(m.point, rel)
		out = append(out, g)
	}
	return out, nil
}

// lowest is the lowest limit along the path of cgroup g, from its own
// folder to its hierarchy's mount (a parent's limit bounds its
// children), and where it was found.
func lowest(root string, g Cgroup) (limit uint64, source string) {
	for dir := g.Dir; ; dir = path.Dir(dir) {
		f := path.Join(dir, g.LimitFile)
		if l, ok := readLimit(filepath.Join(root, f)); ok && (limit == 0 || l < limit) {
			limit, source = l, f
		}
		if dir == g.mount || dir == "/" || dir == "." {
			return limit, source
		}
	}
}

// readLimit reads a limit file: a number of bytes, or "max" (none).
func readLimit(file string) (uint64, bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n >= unlimited || n == 0 {
		return 0, false
	}
	return n, true
}

// mount is where a cgroup hierarchy is mounted: point, showing the
// hierarchy from root (a container sees its own cgroup as "/").
type mount struct{ point, root string }

// mounts are the mounts of the unified (v2) hierarchy and of the v1
// memory controller.
type mounts struct{ v1, v2 *mount }

// readMounts finds the cgroup mounts in a mountinfo file.
func readMounts(file string) (mounts, error) {
	f, err := os.Open(file)
	if err != nil {
		return mounts{}, err
	}
	defer f.Close()
	var ms mounts
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// ID parent major:minor root point options [optional...] - fstype source super-options
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, f := range fields {
			if f == "-" {
				sep = i
				break
			}
		}
		if sep < 5 || sep+3 > len(fields) {
			continue
		}
		m := &mount{root: path.Clean(fields[3]), point: fields[4]}
		if m.root == "/" {
			m.root = ""
		}
		switch fstype := fields[sep+1]; {
		case fstype == "cgroup2" && ms.v2 == nil:
			ms.v2 = m
		case fstype == "cgroup" && hasField(fields[sep+3], "memory") && ms.v1 == nil:
			ms.v1 = m
		}
	}
	return ms, sc.Err()
}

// hasField reports whether the comma-separated list has name.
func hasField(list, name string) bool {
	for _, f := range strings.Split(list, ",") {
		if f == name {
			return true
		}
	}
	return false
}
