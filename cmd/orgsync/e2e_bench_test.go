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

// The first load of BenchmarkFirstLoad16Groups: 5,000 new users into an
// organization that has 16 user groups, none with members yet, and only
// its administrator; the simulator enforces the service's limits with the
// window shortened to 2 s, and the client is configured alike.
const (
	load16Users  = 5000
	load16Groups = 16
	load16Window = 2 * time.Second
)

// BenchmarkFirstLoad16Groups syncs load16Users new users from a CSV file
// into the 16 groups of a near-empty organization. The reads must be the
// pages needed: one organization page and one page of the group listing
// (the targets have no members, so the group listing tells that they
// exist; no desired independent ID, so no invite listing). It reports the
// reads, the time as a multiple of the fastest the limits allow (every API
// request at 100 a window) and the 429s, and fails on a read too many, on
// any 429 or a ratio over 1.10 (the goal is 1.05).
//
//	go test ./cmd/orgsync -run '^$' -bench FirstLoad16Groups -benchtime 1x
func BenchmarkFirstLoad16Groups(b *testing.B) {
	limits := gate.Limits{Read: 25, App: 100, Window: load16Window}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := exampleDir(b)
		writeLoad16(b, dir)
		s := startSim(b, dir, umsim.Options{Limits: limits})
		cfg := configFor(b, dir, "csv", s.url, "limits: {reads: 6000, requests: 6000}", "limits: {reads: 25, requests: 100, window: 2s}")
		b.StartTimer()
		elapsed, _ := timedSync(b, cfg)
		b.StopTimer()
		st := s.Stats()
		reads := 0
		for _, ep := range []string{gate.EndpointUsers, gate.EndpointGroupUsers, gate.EndpointUser, gate.EndpointGroups, gate.EndpointInvites} {
			reads += st.Count(ep, 200) + st.Count(ep, 404)
		}
		n, fastest := fastestFor(st, limits)
		b.ReportMetric(float64(reads), "reads")
		b.Logf("%d reads (want 2: one organization page, one group listing page)", reads)
		if reads != 2 {
			b.Errorf("%d reads, want 2", reads)
		}
		reportLoad(b, elapsed, fastest, n, st.TooManyRequests)
	}
}

// writeLoad16 writes the near-empty organization of 16 groups over the
// example organization (sim/org.yaml), load16Users CSV users in them (one group each,
// and every fourth user a second one) and the mapping from directory group
// tNN to user group "Team NN" into the CSV example's configuration.
func writeLoad16(b *testing.B, dir string) {
	org, err := os.ReadFile(filepath.Join(dir, "sim", "org.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	text := string(org)
	seed := text[:strings.Index(text, "products:")] + "userGroups:\n"
	mapping := "mapping:\n"
	for g := 1; g <= load16Groups; g++ {
		seed += fmt.Sprintf("  - {name: Team %02d}\n", g)
		mapping += fmt.Sprintf("  - {directory: t%02d, targets: [Team %02d]}\n", g, g)
	}
	seed += "users:\n  - {email: admin@example.com, firstname: Ada, lastname: Admin, country: US, type: federatedID, groups: [_org_admin]}\n"
	var csv strings.Builder
	csv.WriteString("firstname,lastname,email,country,groups\n")
	for u := 0; u < load16Users; u++ {
		groups := fmt.Sprintf("t%02d", u%load16Groups+1)
		if u%4 == 0 {
			groups += fmt.Sprintf(",t%02d", (u+1)%load16Groups+1)
		}
		fmt.Fprintf(&csv, "First%d,Last%d,load%05d@example.com,US,\"%s\"\n", u, u, u, groups)
	}
	cfgPath := filepath.Join(dir, "csv", "orgsync.yaml")
	cfg, err := os.ReadFile(cfgPath)
	if err != nil {
		b.Fatal(err)
	}
	c := string(cfg)
	c = c[:strings.Index(c, "mapping:")] + mapping + c[strings.Index(c, "\npolicy:"):]
	for path, body := range map[string]string{"sim/org.yaml": seed, "csv/users.csv": csv.String(), "csv/orgsync.yaml": c} {
		if err := os.WriteFile(filepath.Join(dir, path), []byte(body), 0o600); err != nil {
			b.Fatal(err)
		}
	}
}
