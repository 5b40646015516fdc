package reconcile

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// benchState is n current users and a desired state that differs in 5%
// of them: 1% new, 1% unmatched, 2% with a membership added and removed,
// 1% renamed. Users are in 3 of 20 managed groups (10 user groups).
func benchState(n int) (Desired, *Current, *Policy) {
	rng := rand.New(rand.NewPCG(1, 2))
	groups := make([]string, 20)
	for i := range groups {
		groups[i] = fmt.Sprintf("Group %02d", i)
	}
	pol := &Policy{Managed: groups, UserGroups: groups[:10], Update: Attributes{FirstName: true, LastName: true}, Unmatched: RemoveUsers}
	cur := &Current{}
	des := Desired{Complete: true}
	cur.Users.Grow(n)
	des.Users.Grow(n)
	for i := range n {
		u := User{Type: EnterpriseID, Email: fmt.Sprintf("user%07d@example.com", i), FirstName: "First", LastName: "Last", Country: "US",
			Groups: []string{groups[rng.IntN(20)], groups[rng.IntN(20)], groups[rng.IntN(20)]}}
		cur.Users.Add(u)
		d := u
		switch r := i % 100; {
		case r == 0: // unmatched
			continue
		case r == 1: // new
			d.Email = fmt.Sprintf("new%07d@example.com", i)
		case r == 2, r == 3:
			d.Groups = []string{u.Groups[0], groups[rng.IntN(20)]}
		case r == 4:
			d.FirstName = "Renamed"
		}
		des.Users.Add(d)
	}
	return des, cur, pol
}

// peakHeap samples the live heap until stop is closed.
func peakHeap(stop <-chan struct{}, wg *sync.WaitGroup, peak *uint64) {
	defer wg.Done()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for {
		metrics.Read(s)
		*peak = max(*peak, s[0].Value.Uint64())
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

// peakRSS is the process's peak resident set (VmHWM), 0 when unknown.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkDiffAndBatches1M: diff and plan (batching included) of 1,000,000
// desired against 1,000,000 current users with 5% drift. peak-heap-MiB
// (live heap, sampled) and peak-rss-MiB (the process's VmHWM) include both
// states.
func BenchmarkDiffAndBatches1M(b *testing.B) {
	des, cur, pol := benchState(1_000_000)
	runtime.GC()
	var peak uint64
	stop, wg := make(chan struct{}), &sync.WaitGroup{}
	wg.Add(1)
	go peakHeap(stop, wg, &peak)
	var reqs []Request
	var plan *Plan
	b.ResetTimer()
	for b.Loop() {
		var err error
		if plan, err = Diff(des, cur, validPolicy(b, pol)); err != nil {
			b.Fatal(err)
		}
		reqs = plan.Batches(DefaultLimits())
	}
	b.StopTimer()
	close(stop)
	wg.Wait()
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(peakRSS())/(1<<20), "peak-rss-MiB")
	b.ReportMetric(float64(len(plan.Changes)), "changes")
	b.ReportMetric(float64(len(reqs)), "requests")
}
