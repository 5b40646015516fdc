package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
)

// BenchmarkFirstLoad10k syncs 10,000 new users from a CSV file into the
// simulator enforcing the service's limits (25 reads and 100 requests a
// window) with a window shortened to 5 s, the client configured alike. It
// reports the run's time as a multiple of the fastest the limits allow
// (every API request the simulator counted, at 100 a window) and fails on
// any 429 or a ratio over 1.10.
//
//	go test ./cmd/orgsync -run '^$' -bench FirstLoad10k -benchtime 1x
func BenchmarkFirstLoad10k(b *testing.B) {
	// The window is short enough for a quick figure and long enough that
	// a request's latency on a loaded machine (a few ms) stays below the
	// 50 ms between two requests that the limits impose.
	const users, window = 10000, 5 * time.Second
	limits := gate.Limits{Read: 25, App: 100, Window: window}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := exampleDir(b)
		var csv strings.Builder
		csv.WriteString("firstname,lastname,email,country,groups\n")
		for u := 0; u < users; u++ {
			fmt.Fprintf(&csv, "First%d,Last%d,load%05d@example.com,US,\"eng,design\"\n", u, u, u)
		}
		if err := os.WriteFile(filepath.Join(dir, "csv", "users.csv"), []byte(csv.String()), 0o600); err != nil {
			b.Fatal(err)
		}
		s := startSim(b, dir, umsim.Options{Limits: limits})
		cfg := configFor(b, dir, "csv", s.url, "limits: {reads: 6000, requests: 6000}", "limits: {reads: 25, requests: 100, window: 5s}",
			"unmatchedUsers: remove-groups", "unmatchedUsers: preserve")
		b.StartTimer()
		start := time.Now()
		r := runBinary(b, nil, "sync", "--config", cfg)
		elapsed := time.Since(start)
		b.StopTimer()
		if r.code != exitOK {
			b.Fatalf("sync: exit %d\n%s", r.code, r.stderr)
		}
		st := s.Stats()
		requests := st.Total() - st.Requests[gate.EndpointToken][200]
		fastest := time.Duration(float64(requests) / float64(limits.App) * float64(window))
		ratio := elapsed.Seconds() / fastest.Seconds()
		b.ReportMetric(ratio, "x-fastest")
		b.ReportMetric(float64(requests), "requests")
		b.ReportMetric(float64(st.TooManyRequests), "429s")
		b.Logf("%d users: %d API requests in %s; the limits allow it in %s at best: %.3f x", users, requests, elapsed.Round(time.Millisecond), fastest, ratio)
		if st.TooManyRequests > 0 || ratio > 1.10 {
			b.Fatalf("429s: %d, ratio %.3f (want 0 and <= 1.10)", st.TooManyRequests, ratio)
		}
	}
}
