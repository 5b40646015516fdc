package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umsim/gate"
	"github.com/orgsync/orgsync/target/umwire"
)

// The incremental benchmarks' organization: users Enterprise IDs in ten
// user groups (one or two each), listed 2,000 a page; the simulator
// enforces the service's limits (25 reads and 100 requests a window) with
// the window shortened to 10 s (the real one is a minute), the client
// configured alike. Each run finds bigChanged users changed in the source.
const (
	bigChanged = 1_000
	bigGroups  = 10
	bigWindow  = 10 * time.Second
	bigLimits  = "{reads: 25, requests: 100, window: 10s}"
)

// memoryGoals are the most peak resident memory (VmHWM, MiB) a full run,
// an incremental run and a full plan may take.
type memoryGoals struct{ full, incremental, plan float64 }

// BenchmarkIncremental1M syncs a 1,000,000-member organization twice,
// each time with 1,000 users changed in a CSV source (a new last name,
// every other one a group more): the first run reads the whole
// organization (500 listing pages) and keeps its snapshot, the second,
// a window later, plans from the snapshot. Each run must send the
// fewest action requests the changes allow (1,000 user entries, 10 a
// request: 100); the incremental run no listing page. It reports both
// times against the floor the limits allow (listing pages at 25 a
// window plus action requests at 100 a window), their ratio, the
// snapshot's load and save, and the peak memory of both runs and of a
// full plan of the same organization without incremental runs (on a
// simulator without limits). It fails on a 429, a request more than
// needed, the full run over 1.03x its floor, the incremental run over
// 1.05x the time its action requests need, or a peak memory over its
// goal (full run 600 MiB, incremental run 450 MiB, full plan 700 MiB).
//
//	go test ./cmd/orgsync -run '^$' -bench Incremental1M -benchtime 1x -timeout 30m
func BenchmarkIncremental1M(b *testing.B) {
	benchIncremental(b, 1_000_000, true, memoryGoals{full: 600, incremental: 450, plan: 700})
}

// BenchmarkIncremental200k is BenchmarkIncremental1M's runs at 200,000
// members (100 listing pages), against a memory goal of 200 MiB for each;
// the times are reported, not checked (the fixed costs of a run weigh
// more against a shorter floor).
//
//	go test ./cmd/orgsync -run '^$' -bench Incremental200k -benchtime 1x -timeout 30m
func BenchmarkIncremental200k(b *testing.B) {
	benchIncremental(b, 200_000, false, memoryGoals{full: 200, incremental: 200, plan: 200})
}

// benchIncremental runs the incremental benchmark with an organization of
// users members, checking the times against their floors when timed.
func benchIncremental(b *testing.B, users int, timed bool, goals memoryGoals) {
	for range b.N {
		b.StopTimer()
		dir := exampleDir(b)
		st := bigOrg(b, dir, users)
		limits := gate.Limits{Read: 25, App: 100, Window: bigWindow}
		sim := startBigSim(b, st, limits)
		cfg := writeBigConfig(b, dir, "big.yaml", sim.url, bigLimits, true)
		writeBigCSV(b, dir, users, 0)

		full := timedBigRun(b, sim, limits, cfg)
		time.Sleep(bigWindow) // the next run starts with a window of its own, as a scheduled one does
		writeBigCSV(b, dir, users, users/2)
		inc := timedBigRun(b, sim, limits, cfg)

		plain := startBigSim(b, st, gate.Limits{})
		plan := runBinaryFor(b, 10*time.Minute, nil, "plan", "--config", writeBigConfig(b, dir, "plain.yaml", plain.url, "{reads: 100000, requests: 100000}", false))
		if plan.code != exitOK {
			b.Fatalf("full plan: exit %d\n%s", plan.code, plan.stderr)
		}
		planMemory := logNumber(b, plan.stderr, "peakMemory")
		reportBig(b, users, full, inc, planMemory)
		b.ReportMetric(plan.cpu.Seconds(), "plan-cpu-s")
		checkBig(b, users, timed, full, inc)
		checkMemory(b, goals, full.memory, inc.memory, planMemory)
	}
}

// bigRun is what one timed run of the benchmark did.
type bigRun struct {
	elapsed, floor      time.Duration
	cpu                 time.Duration // the process's CPU time
	pages, actions, tmr int
	read                string
	load, save, memory  float64 // seconds, seconds, MiB
}

// timedBigRun runs orgsync sync with cfg against sim and measures it.
func timedBigRun(b *testing.B, sim *bigSim, limits gate.Limits, cfg string) bigRun {
	before := sim.Stats()
	sim.reset()
	b.StartTimer()
	start := time.Now()
	r := runBinaryFor(b, 20*time.Minute, nil, "sync", "--config", cfg)
	end := time.Now()
	elapsed := end.Sub(start)
	b.StopTimer()
	if r.code != exitOK {
		b.Fatalf("sync: exit %d\n%s", r.code, r.stderr)
	}
	after := sim.Stats()
	run := bigRun{elapsed: elapsed, cpu: r.cpu, read: "none",
		pages:   after.Count(gate.EndpointUsers, 200) - before.Count(gate.EndpointUsers, 200),
		actions: after.Count(gate.EndpointAction, 200) - before.Count(gate.EndpointAction, 200),
		tmr:     after.TooManyRequests - before.TooManyRequests,
		save:    logNumber(b, r.stderr, "snapshotSave"), memory: logNumber(b, r.stderr, "peakMemory")}
	if m := regexp.MustCompile(`"msg":"summary".*"read":"([a-z]+)"`).FindStringSubmatch(r.stderr); m != nil {
		run.read = m[1]
	}
	if run.read == "incremental" {
		run.load = logNumber(b, r.stderr, "snapshotLoad")
	}
	reads := (after.Total() - after.Count(gate.EndpointAction, 200) - after.Requests[gate.EndpointToken][200]) -
		(before.Total() - before.Count(gate.EndpointAction, 200) - before.Requests[gate.EndpointToken][200])
	run.floor = time.Duration((float64(reads)/float64(limits.Read) + float64(run.actions)/float64(limits.App)) * float64(limits.Window))
	b.Logf("%s run: %d listing pages, %d other reads, %d action requests, %d x 429 in %s (floor %s; %s); snapshot load %.2f s, save %.2f s; peak memory %.0f MiB; CPU %s",
		run.read, run.pages, reads-run.pages, run.actions, run.tmr, elapsed.Round(time.Millisecond), run.floor, sim.phases(start, end),
		run.load, run.save, run.memory, run.cpu.Round(10*time.Millisecond))
	return run
}

// reportBig reports the figures.
func reportBig(b *testing.B, users int, full, inc bigRun, planMemory float64) {
	fullX, incX := full.elapsed.Seconds()/full.floor.Seconds(), inc.elapsed.Seconds()/inc.floor.Seconds()
	b.ReportMetric(full.elapsed.Seconds(), "full-s")
	b.ReportMetric(fullX, "full-x-floor")
	b.ReportMetric(inc.elapsed.Seconds(), "incremental-s")
	b.ReportMetric(incX, "incremental-x-floor")
	b.ReportMetric(full.elapsed.Seconds()/inc.elapsed.Seconds(), "full/incremental")
	b.ReportMetric(inc.load, "snapshot-load-s")
	b.ReportMetric(max(full.save, inc.save), "snapshot-save-s")
	b.ReportMetric(full.cpu.Seconds(), "full-cpu-s")
	b.ReportMetric(inc.cpu.Seconds(), "incremental-cpu-s")
	b.ReportMetric(full.memory, "full-peak-MiB")
	b.ReportMetric(inc.memory, "incremental-peak-MiB")
	b.ReportMetric(planMemory, "plan-peak-MiB")
	b.Logf("%d members: full %s (%.3f x its floor %s), incremental %s (%.3f x its floor %s): the full run takes %.1f times as long; "+
		"peak memory: full run %.0f MiB, incremental run %.0f MiB, full plan %.0f MiB",
		users, full.elapsed.Round(time.Millisecond), fullX, full.floor, inc.elapsed.Round(time.Millisecond), incX, inc.floor,
		full.elapsed.Seconds()/inc.elapsed.Seconds(), full.memory, inc.memory, planMemory)
}

// checkBig fails on a run that read or sent other than it must, or, when
// timed, took longer than its goal.
func checkBig(b *testing.B, users int, timed bool, full, inc bigRun) {
	fullX, incX := full.elapsed.Seconds()/full.floor.Seconds(), inc.elapsed.Seconds()/inc.floor.Seconds()
	want := bigChanged / 10
	switch {
	case full.read != "full" || inc.read != "incremental":
		b.Errorf("runs read %s then %s, want full then incremental", full.read, inc.read)
	case full.pages != users/umwire.MaxUsersPerPage || inc.pages != 0:
		b.Errorf("listing pages: full run %d, incremental %d; want %d and 0", full.pages, inc.pages, users/umwire.MaxUsersPerPage)
	case full.actions != want || inc.actions != want:
		b.Errorf("action requests: full run %d, incremental %d; want %d each", full.actions, inc.actions, want)
	case full.tmr+inc.tmr > 0:
		b.Errorf("%d answers 429", full.tmr+inc.tmr)
	case timed && (fullX > 1.03 || incX > 1.05):
		b.Errorf("full run %.3f x its floor (goal <= 1.03), incremental %.3f x (goal <= 1.05)", fullX, incX)
	case timed && (inc.load > 2 || full.save > 2 || inc.save > 2):
		b.Errorf("snapshot load %.2f s, saves %.2f and %.2f s (goal < 2 s)", inc.load, full.save, inc.save)
	}
}

// checkMemory fails on a peak resident memory over its goal.
func checkMemory(b *testing.B, goals memoryGoals, full, inc, plan float64) {
	for _, m := range []struct {
		what       string
		peak, goal float64
	}{{"full run", full, goals.full}, {"incremental run", inc, goals.incremental}, {"full plan", plan, goals.plan}} {
		if m.peak > m.goal {
			b.Errorf("peak memory of the %s: %.0f MiB (goal <= %.0f MiB)", m.what, m.peak, m.goal)
		}
	}
}

// logNumber is the number of the last field key in the JSON log lines.
func logNumber(b *testing.B, log, key string) float64 {
	m := regexp.MustCompile(`"`+key+`":"?([0-9.]+)`).FindAllStringSubmatch(log, -1)
	if len(m) == 0 {
		b.Fatalf("no %s in the log:\n%.2000s", key, log)
	}
	f, _ := strconv.ParseFloat(m[len(m)-1][1], 64)
	return f
}

// bigEmail is the email of the benchmark's user i.
func bigEmail(i int) string { return fmt.Sprintf("u%07d@example.com", i) }

// bigGroupsOf are the user groups of user i: one or two of ten.
func bigGroupsOf(i int) []int {
	if i%3 == 0 {
		return []int{i % bigGroups, (i + 1) % bigGroups}
	}
	return []int{i % bigGroups}
}

// bigOrg is the example organization (its domain and integration) with
// users Enterprise IDs in bigGroups user groups instead of its users.
func bigOrg(b testing.TB, dir string, users int) *umsim.State {
	st, err := umsim.LoadState(filepath.Join(dir, "sim", "org.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	st.UserGroups, st.Products, st.Invites = nil, nil, nil
	for g := range bigGroups {
		st.UserGroups = append(st.UserGroups, umsim.UserGroup{Name: fmt.Sprintf("Group %d", g)})
	}
	st.Users = make([]umsim.User, users)
	for i := range st.Users {
		u := umsim.User{Type: umwire.TypeEnterpriseID, Email: bigEmail(i), FirstName: "First" + strconv.Itoa(i),
			LastName: "Last" + strconv.Itoa(i), Country: "US"}
		for _, g := range bigGroupsOf(i) {
			u.Groups = append(u.Groups, fmt.Sprintf("Group %d", g))
		}
		st.Users[i] = u
	}
	return st
}

// bigSim is the simulator of the benchmark, with when it answered its
// first and last listing page and action request.
type bigSim struct {
	*sim
	mu                                     sync.Mutex
	firstRead, lastRead, firstAct, lastAct time.Time
}

// startBigSim serves st with listing pages of 2,000 users and limits.
func startBigSim(b testing.TB, st *umsim.State, limits gate.Limits) *bigSim {
	srv, err := umsim.New(st, umsim.Options{PageSize: umwire.MaxUsersPerPage, Limits: limits})
	if err != nil {
		b.Fatal(err)
	}
	s := &bigSim{sim: &sim{Server: srv}}
	s.url = serve(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		srv.ServeHTTP(w, r)
		s.clock(r.URL.Path)
	}))
	return s
}

// clock notes when a listing page or an action request was answered.
func (s *bigSim) clock(path string) {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case strings.Contains(path, "/users/"):
		if s.firstRead.IsZero() {
			s.firstRead = now
		}
		s.lastRead = now
	case strings.Contains(path, "/action/"):
		if s.firstAct.IsZero() {
			s.firstAct = now
		}
		s.lastAct = now
	}
}

// reset forgets the times noted, before a run.
func (s *bigSim) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.firstRead, s.lastRead, s.firstAct, s.lastAct = time.Time{}, time.Time{}, time.Time{}, time.Time{}
}

// phases says how long a run that started at start and ended at end
// spent before its first listing page, reading, between its last page
// and its first action request, sending, and after its last request.
func (s *bigSim) phases(start, end time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := func(from, to time.Time) string { return to.Sub(from).Round(10 * time.Millisecond).String() }
	if s.lastRead.IsZero() {
		return fmt.Sprintf("before its first action request %s, sending %s, after %s", d(start, s.firstAct), d(s.firstAct, s.lastAct), d(s.lastAct, end))
	}
	return fmt.Sprintf("before its first listing page %s, reading %s, planning %s, sending %s, after %s",
		d(start, s.firstRead), d(s.firstRead, s.lastRead), d(s.lastRead, s.firstAct), d(s.firstAct, s.lastAct), d(s.lastAct, end))
}

// writeBigCSV writes the source: the organization's users, those from
// changedFrom on, bigChanged of them, with a new last name, and every
// other one of those in one more group. The users the previous
// run changed (from 0) stay changed.
func writeBigCSV(b testing.TB, dir string, users, changedFrom int) {
	f, err := os.Create(filepath.Join(dir, "csv", "big.csv"))
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("firstname,lastname,email,country,groups\n")
	for i := range users {
		last, groups := "Last"+strconv.Itoa(i), bigGroupsOf(i)
		for _, from := range []int{0, changedFrom} {
			if i >= from && i < from+bigChanged {
				last = "Changed" + strconv.Itoa(i)
				if i%2 == 0 {
					groups = append(groups, (i+5)%bigGroups)
				}
			}
		}
		fmt.Fprintf(w, "First%d,%s,%s,US,\"", i, last, bigEmail(i))
		for j, g := range groups {
			if j > 0 {
				w.WriteByte(',')
			}
			fmt.Fprintf(w, "g%d", g)
		}
		w.WriteString("\"\n")
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// writeBigConfig writes the configuration (csv/name) that syncs big.csv
// into the organization at url with the client's limits, in incremental
// runs or not.
func writeBigConfig(b testing.TB, dir, name, url, limits string, incremental bool) string {
	text := fmt.Sprintf(`target:
  orgId: 1234ABCD@VendorOrg
  baseURL: %s
  limits: %s
  auth: {method: jwt, clientId: orgsync-demo, clientSecret: {file: ../sim/demo-client-secret},
    technicalAccountId: demo-tech@techacct.example.com, privateKey: {file: ../sim/demo-private-key.pem}}
sources:
  - csv: {path: big.csv, defaultType: enterpriseID}
policy: {unmatchedUsers: remove-groups}
mapping:
`, url, limits)
	for g := range bigGroups {
		text += fmt.Sprintf("  - {directory: g%d, targets: [Group %d]}\n", g, g)
	}
	if incremental {
		text += "state: {dir: state}\nincremental: {enabled: true}\n"
	}
	path := filepath.Join(dir, "csv", name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkFirstLoadMemory200k syncs 200,000 users of a CSV source into
// an organization that has none of them (a first load: 200,000 creates,
// 20,000 action requests, history and snapshot kept), on a simulator
// without limits, and reports the run's peak memory and CPU time: what a
// planned change costs, beside what a member and a source row do.
//
//	go test ./cmd/orgsync -run '^$' -bench FirstLoadMemory200k -benchtime 1x -timeout 30m
func BenchmarkFirstLoadMemory200k(b *testing.B) {
	const users = 200_000
	for range b.N {
		b.StopTimer()
		dir := exampleDir(b)
		sim := startBigSim(b, bigOrg(b, dir, 0), gate.Limits{})
		cfg := writeBigConfig(b, dir, "big.yaml", sim.url, "{reads: 100000, requests: 100000}", true)
		writeBigCSV(b, dir, users, 0)
		b.StartTimer()
		r := runBinaryFor(b, 20*time.Minute, nil, "sync", "--config", cfg)
		b.StopTimer()
		if r.code != exitOK {
			b.Fatalf("sync: exit %d\n%.3000s", r.code, r.stderr)
		}
		if created := sim.Stats().Count(gate.EndpointAction, 200); created != users/10 {
			b.Errorf("%d action requests, want %d", created, users/10)
		}
		peak := logNumber(b, r.stderr, "peakMemory")
		b.ReportMetric(peak, "peak-MiB")
		b.ReportMetric(r.cpu.Seconds(), "cpu-s")
		b.Logf("first load of %d users: peak memory %.0f MiB, CPU %s", users, peak, r.cpu.Round(10*time.Millisecond))
	}
}
