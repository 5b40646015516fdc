package run

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// peakMemory returns the process's peak resident memory in bytes: VmHWM
// from /proc/self/status on Linux, else the memory the Go runtime obtained
// from the system.
func peakMemory() uint64 {
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
