package run

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"testing"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/examples"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/target/umsim"
	"github.com/orgsync/orgsync/target/umwire"
)

// BenchmarkPlanMemory plans an organization of 200,000 and of 1,000,000
// Enterprise IDs (ten user groups, one or two each, listed 2,000 a page
// by the simulator over loopback, without limits) from a CSV source of
// the same users, one in a thousand with a new last name. It reports the
// heap the plan holds with the organization's users it was made from
// (live after a collection, the simulator's own state taken off) and
// keeps both alive to the end, so that a heap
// profile taken with -memprofile shows what holds it:
//
//	go test ./internal/run -run '^$' -bench 'PlanMemory/1M' -benchtime 1x -memprofile mem.out
//	go tool pprof -sample_index=inuse_space -ignore 'umsim|httptest' -top mem.out
func BenchmarkPlanMemory(b *testing.B) {
	for _, n := range []int{200_000, 1_000_000} {
		b.Run(sizeName(n), func(b *testing.B) { benchPlanMemory(b, n) })
	}
}

func sizeName(n int) string {
	if n%1_000_000 == 0 {
		return strconv.Itoa(n/1_000_000) + "M"
	}
	return strconv.Itoa(n/1000) + "k"
}

func benchPlanMemory(b *testing.B, n int) {
	dir := b.TempDir()
	if err := os.CopyFS(dir, examples.FS); err != nil {
		b.Fatal(err)
	}
	st, err := umsim.LoadState(filepath.Join(dir, "sim", "org.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	st.UserGroups, st.Products, st.Invites = nil, nil, nil
	for g := range 10 {
		st.UserGroups = append(st.UserGroups, umsim.UserGroup{Name: "Group " + strconv.Itoa(g)})
	}
	st.Users = make([]umsim.User, n)
	for i := range st.Users {
		u := umsim.User{Type: umwire.TypeEnterpriseID, Email: fmt.Sprintf("u%07d@example.com", i),
			FirstName: "First" + strconv.Itoa(i), LastName: "Last" + strconv.Itoa(i), Country: "US"}
		for _, g := range memberOf(i) {
			u.Groups = append(u.Groups, "Group "+strconv.Itoa(g))
		}
		st.Users[i] = u
	}
	sim, err := umsim.New(st, umsim.Options{PageSize: umwire.MaxUsersPerPage})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(sim)
	b.Cleanup(hs.Close)
	writeMemoryCSV(b, filepath.Join(dir, "csv", "big.csv"), n)
	cfg := writeMemoryConfig(b, dir, hs.URL)
	before := liveHeap()
	b.ResetTimer()
	var held uint64
	for range b.N {
		keep := &keepCurrent{}
		j, err := New(cfg, Overrides{}, Options{Observer: keep})
		if err != nil {
			b.Fatal(err)
		}
		plans, err := j.Plan(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if p := plans.Orgs[0]; p.Err != nil || len(p.Plan.Changes) != n/1000 {
			b.Fatalf("plan: %v, %d changes, want %d", p.Err, len(p.Plan.Changes), n/1000)
		}
		held = liveHeap() - before
		writeHeapProfile(b)
		runtime.KeepAlive(plans)
		runtime.KeepAlive(keep)
	}
	b.ReportMetric(float64(held)/(1<<20), "held-MiB")
	b.ReportMetric(float64(held)/float64(n), "held-B/user")
}

// heapProfile is where BenchmarkPlanMemory writes the heap profile of the
// plan's peak (the -memprofile of go test is written after the plan is
// gone).
var heapProfile = flag.String("heapprofile", "", "BenchmarkPlanMemory: write the heap profile of the plan's peak to this file")

func writeHeapProfile(b *testing.B) {
	if *heapProfile == "" {
		return
	}
	f, err := os.Create(*heapProfile)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}

// keepCurrent keeps the current state the plan was made from, which the
// plan's peak holds beside it.
type keepCurrent struct {
	NopObserver
	current *reconcile.Current
}

func (k *keepCurrent) Read(_ *OrgPlan, cur *reconcile.Current) { k.current = cur }

// memberOf are the groups of user i: one or two of ten.
func memberOf(i int) []int {
	if i%3 == 0 {
		return []int{i % 10, (i + 1) % 10}
	}
	return []int{i % 10}
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// writeMemoryCSV writes the source of n users, every thousandth with a
// new last name.
func writeMemoryCSV(b testing.TB, path string, n int) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("firstname,lastname,email,country,groups\n")
	for i := range n {
		last := "Last" + strconv.Itoa(i)
		if i%1000 == 0 {
			last = "Changed" + strconv.Itoa(i)
		}
		fmt.Fprintf(w, "First%d,%s,u%07d@example.com,US,\"", i, last, i)
		for j, g := range memberOf(i) {
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

// writeMemoryConfig writes and loads the configuration that plans
// big.csv against the simulator at url.
func writeMemoryConfig(b testing.TB, dir, url string) *config.Config {
	text := fmt.Sprintf(`target:
  orgId: 1234ABCD@VendorOrg
  baseURL: %s
  limits: {reads: 100000, requests: 100000}
  auth: {method: jwt, clientId: orgsync-demo, clientSecret: {file: ../sim/demo-client-secret},
    technicalAccountId: demo-tech@techacct.example.com, privateKey: {file: ../sim/demo-private-key.pem}}
sources:
  - csv: {path: big.csv, defaultType: enterpriseID}
policy: {unmatchedUsers: remove-groups}
mapping:
`, url)
	for g := range 10 {
		text += fmt.Sprintf("  - {directory: g%d, targets: [Group %d]}\n", g, g)
	}
	path := filepath.Join(dir, "csv", "memory.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		b.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	return cfg
}
