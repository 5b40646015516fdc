package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
)

// The first-load benchmarks' simulator enforces the service's limits (25
// reads and 100 requests a window) with the window shortened to 5 s: short
// enough for a quick figure and long enough that a request's latency on a
// loaded machine (a few ms) stays below the 50 ms between two requests
// that the limits impose. The client is configured alike.
const (
	loadUsers  = 10000
	loadWindow = 5 * time.Second
	loadLimits = "limits: {reads: 25, requests: 100, window: 5s}"
)

// loadGateLimits are the simulator's limits of the first-load benchmarks.
var loadGateLimits = gate.Limits{Read: 25, App: 100, Window: loadWindow}

// BenchmarkFirstLoad10k syncs 10,000 new users from a CSV file into the
// simulator enforcing the service's limits. It reports the run's time as a
// multiple of the fastest the limits allow (every API request the
// simulator counted, at 100 a window) and fails on any 429 or a ratio over
// 1.10.
//
//	go test ./cmd/orgsync -run '^$' -bench FirstLoad10k -benchtime 1x
func BenchmarkFirstLoad10k(b *testing.B) {
	benchFirstLoad(b, func(dir string) (string, []*umsim.Server) {
		s := startSim(b, dir, umsim.Options{Limits: loadGateLimits})
		return configFor(b, dir, "csv", s.url, "limits: {reads: 6000, requests: 6000}", loadLimits,
			"unmatchedUsers: remove-groups", "unmatchedUsers: preserve"), []*umsim.Server{s.Server}
	})
}

// BenchmarkFirstLoad3Orgs10k syncs one CSV file of 10,000 new users into
// three organizations at once (every user into each: 30,000 desired
// users), the simulator enforcing the service's limits for each
// organization on its own. The organizations run side by side, so the run
// should take about as long as the slowest of them alone: the benchmark
// reports the wall time as a multiple of the slowest organization's bound
// (its API requests at 100 a window) and fails on any 429 or a ratio over
// 1.10. The source must be read once; the peak memory is logged.
//
//	go test ./cmd/orgsync -run '^$' -bench FirstLoad3Orgs10k -benchtime 1x
func BenchmarkFirstLoad3Orgs10k(b *testing.B) {
	benchFirstLoad(b, func(dir string) (string, []*umsim.Server) {
		writeThreeOrgs(b, dir)
		s := startMultiSim(b, dir, "sim/three.yaml", umsim.Options{Limits: loadGateLimits})
		return configFor(b, dir, "multiorg", s.url), s.Servers()
	})
}

// benchFirstLoad times b.N first loads of loadUsers new users: start
// serves the organizations from the example directory dir (the users
// already written) and returns the configuration that syncs into them.
// Each run is reported against the slowest organization's bound.
func benchFirstLoad(b *testing.B, start func(dir string) (cfg string, orgs []*umsim.Server)) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := exampleDir(b)
		writeLoadCSV(b, dir)
		cfg, orgs := start(dir)
		b.StartTimer()
		elapsed, r := timedSync(b, cfg)
		b.StopTimer()
		var slowest time.Duration
		requests, tooMany := 0, 0
		for _, org := range orgs {
			n, fastest := fastestFor(org.Stats(), loadGateLimits)
			requests += n
			tooMany += org.Stats().TooManyRequests
			slowest = max(slowest, fastest)
			b.Logf("%s: %d API requests, bound %s", org.OrgID(), n, fastest)
		}
		if n := strings.Count(r.stderr, `"msg":"source read"`); n != 1 {
			b.Fatalf("the source was read %d times, want once", n)
		}
		b.Logf("summaries: %v", regexp.MustCompile(`"msg":"summary","org":"[^"]+"|"elapsed":[0-9.]+|"peakMemory":"[^"]+"`).FindAllString(r.stderr, -1))
		reportLoad(b, elapsed, slowest, requests, tooMany)
	}
}

// writeLoadCSV replaces the CSV example's users with loadUsers new users
// in eng and design.
func writeLoadCSV(b *testing.B, dir string) {
	var csv strings.Builder
	csv.WriteString("firstname,lastname,email,country,groups\n")
	for u := 0; u < loadUsers; u++ {
		fmt.Fprintf(&csv, "First%d,Last%d,load%05d@example.com,US,\"eng,design\"\n", u, u, u)
	}
	if err := os.WriteFile(filepath.Join(dir, "csv", "users.csv"), []byte(csv.String()), 0o600); err != nil {
		b.Fatal(err)
	}
}

// threeOrgsConfig syncs the CSV example into three copies of the example
// organization, every user into each.
const threeOrgsConfig = `targets:
  - {name: o1, orgId: 1234ABCD@VendorOrg, baseURL: http://127.0.0.1:8080, ` + loadLimits + `, auth: &a {clientId: orgsync-demo,
      clientSecret: {file: ../sim/demo-client-secret}, technicalAccountId: demo-tech@techacct.example.com, privateKey: {file: ../sim/demo-private-key.pem}}}
  - {name: o2, orgId: 2234ABCD@VendorOrg, baseURL: http://127.0.0.1:8080, ` + loadLimits + `, auth: {<<: *a, clientId: c2}, members: all}
  - {name: o3, orgId: 3234ABCD@VendorOrg, baseURL: http://127.0.0.1:8080, ` + loadLimits + `, auth: {<<: *a, clientId: c3}, members: all}
sources:
  - csv: {path: ../csv/users.csv, defaultType: federatedID}
mapping:
  - {directory: eng, targets: [Engineering, "o2::Engineering", "o3::Engineering"]}
  - {directory: design, targets: [Design, "o2::Design", "o3::Design"]}
policy:
  exclude: {groups: [_org_admin]}
`

// writeThreeOrgs writes the three organizations (sim/three.yaml, copies of
// the example organization) and the configuration that syncs into them
// (multiorg/orgsync.yaml).
func writeThreeOrgs(b *testing.B, dir string) {
	org, err := os.ReadFile(filepath.Join(dir, "sim", "org.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	body := "    " + strings.ReplaceAll(string(org[strings.Index(string(org), "org:"):]), "\n", "\n    ")
	seed := "orgs:\n"
	for i, id := range []string{"1234ABCD", "2234ABCD", "3234ABCD"} {
		client := "orgsync-demo"
		if i > 0 {
			client = fmt.Sprintf("c%d", i+1)
		}
		seed += "  - " + strings.TrimSpace(strings.NewReplacer("1234ABCD", id, "clientID: orgsync-demo", "clientID: "+client).Replace(body)) + "\n"
	}
	for path, text := range map[string]string{"sim/three.yaml": seed, "multiorg/orgsync.yaml": threeOrgsConfig} {
		if err := os.WriteFile(filepath.Join(dir, path), []byte(text), 0o600); err != nil {
			b.Fatal(err)
		}
	}
}

// timedSync runs orgsync sync with cfg and returns its wall time; the run
// must succeed.
func timedSync(b *testing.B, cfg string) (time.Duration, result) {
	start := time.Now()
	r := runBinary(b, nil, "sync", "--config", cfg)
	elapsed := time.Since(start)
	if r.code != exitOK {
		b.Fatalf("sync: exit %d\n%s", r.code, r.stderr)
	}
	return elapsed, r
}

// fastestFor returns the API requests (token requests aside) an
// organization's simulator answered and the fastest limits allow them.
func fastestFor(st gate.Stats, limits gate.Limits) (requests int, fastest time.Duration) {
	requests = st.Total() - st.Requests[gate.EndpointToken][200]
	return requests, time.Duration(float64(requests) / float64(limits.App) * float64(limits.Window))
}

// reportLoad reports the run's time as a multiple of bound, and fails on
// any 429 or a ratio over 1.10.
func reportLoad(b *testing.B, elapsed, bound time.Duration, requests, tooMany int) {
	ratio := elapsed.Seconds() / bound.Seconds()
	b.ReportMetric(ratio, "x-fastest")
	b.ReportMetric(float64(requests), "requests")
	b.ReportMetric(float64(tooMany), "429s")
	b.Logf("%d API requests in %s; the limits allow it in %s at best: %.3f x", requests, elapsed.Round(time.Millisecond), bound, ratio)
	if tooMany > 0 || ratio > 1.10 {
		b.Fatalf("429s: %d, ratio %.3f (want 0 and <= 1.10)", tooMany, ratio)
	}
}
