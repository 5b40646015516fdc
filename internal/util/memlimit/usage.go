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
	// Estimate is what the run was expected to need at its peak, once
	// planned (see Estimate); 0 when unknown.
	Estimate uint64
}

// Near reports whether the peak, or the estimate, came near the bound.
func (u Usage) Near() bool { return u.PeakNear() || u.EstimateNear() }

// PeakNear reports whether the peak came near the bound.
func (u Usage) PeakNear() bool { return near(u.Peak, u.Bound) }

// EstimateNear reports whether the estimate came near the bound.
func (u Usage) EstimateNear() bool { return near(u.Estimate, u.Bound) }

func near(n, bound uint64) bool { return bound > 0 && float64(n) >= NearShare*float64(bound) }

// Percent is n as a percentage of the bound (0 without one).
func (u Usage) Percent(n uint64) int {
	if u.Bound == 0 {
		return 0
	}
	return int(math.Round(100 * float64(n) / float64(u.Bound)))
}

// Now is the process's peak resident memory since it started (or since
// ResetPeak) against its Bound.
func Now() Usage { return Usage{Peak: PeakRSS(), Bound: Bound()} }

// Bound is the memory the process should stay under: the container's
// limit, else the Go memory limit in effect; 0 when neither is known.
func Bound() uint64 {
	if c, _, _ := Container("/"); c > 0 {
		return c
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		return uint64(l)
	}
	return 0
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

// The sizing formula (docs/deployment.md, "Memory"): the peak resident
// memory of a run, measured with Go's default collector settings on runs
// of 200,000 and 1,000,000 users (docs/performance.md), rounded up.
const (
	BaseBytes   = 50 << 20 // the program, its runtime and a run's fixed costs
	MemberBytes = 200      // each user an organization has
	RowBytes    = 200      // each user a source gives
	ChangeBytes = 1536     // each change a run sends (a create, an update, a removal)
)

// Estimate is the peak resident memory of a run over organizations of
// members users in all, from sources of rows users, that sends changes
// changes.
func Estimate(members, rows, changes int) uint64 {
	return BaseBytes + uint64(members)*MemberBytes + uint64(rows)*RowBytes + uint64(changes)*ChangeBytes
}
