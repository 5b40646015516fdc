package memlimit

import (
	"bufio"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// NearShare is the part of the bound (Decision.Bound) at which a run's
// peak memory is near it: the heap is then at the Go memory limit, and a
// somewhat larger organization would be killed for memory.
const NearShare = 0.80

// Usage is a run's peak resident memory against the memory the process
// should stay under, in bytes.
type Usage struct {
	Peak  uint64
	Bound uint64 // 0 when none is known
}

// Near reports whether the peak came near the bound.
func (u Usage) Near() bool { return u.Bound > 0 && float64(u.Peak) >= NearShare*float64(u.Bound) }

// Percent is the peak as a percentage of the bound (0 without one).
func (u Usage) Percent() int {
	if u.Bound == 0 {
		return 0
	}
	return int(math.Round(100 * float64(u.Peak) / float64(u.Bound)))
}

// Now is the process's peak resident memory since it started (or since
// ResetPeak) against the container's limit, else the Go memory limit in
// effect.
func Now() Usage {
	u := Usage{Peak: PeakRSS()}
	if c, _, _ := Container("/"); c > 0 {
		u.Bound = c
	} else if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		u.Bound = uint64(l)
	}
	return u
}

// PeakRSS is the process's peak resident memory in bytes: VmHWM from
// /proc/self/status on Linux, else the memory the Go runtime obtained
// from the system.
func PeakRSS() uint64 {
	if f, err := os.Open("/proc/self/status"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
				kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
				if err == nil {
					return kb * 1024
				}
			}
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.Sys
}

// ResetPeak starts PeakRSS anew from the memory resident now, where the
// system allows it (Linux: /proc/self/clear_refs), so that a daemon's
// run reports its own peak, not the largest since the daemon started.
func ResetPeak() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }
