package umapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"testing"

	"github.com/orgsync/orgsync/target/umwire"
)

// recordedPages encodes `distinct` pages of `size` users each, shaped like
// the service's answers (names, country, type, status and 2-6 groups).
func recordedPages(b *testing.B, distinct, size int) [][]byte {
	b.Helper()
	out := make([][]byte, distinct)
	for p := range out {
		page := umwire.UsersPage{Result: umwire.ResultSuccess, Users: make([]umwire.User, size)}
		for i := range page.Users {
			n := p*size + i
			email := fmt.Sprintf("user%07d@example.com", n)
			groups := []string{"Everyone", "Department " + strconv.Itoa(n%40), "Product Profile " + strconv.Itoa(n%12)}
			for g := range n % 4 {
				groups = append(groups, "Team "+strconv.Itoa((n+g)%300))
			}
			page.Users[i] = umwire.User{ID: fmt.Sprintf("%024X", n), Email: email, Username: email, Domain: "example.com",
				FirstName: "First" + strconv.Itoa(n), LastName: "Last" + strconv.Itoa(n), Country: "US",
				Status: umwire.StatusActive, Type: umwire.TypeFederatedID, Groups: groups}
		}
		body, err := json.Marshal(page)
		if err != nil {
			b.Fatal(err)
		}
		out[p] = body
	}
	return out
}

// BenchmarkDecodeOrgListing reads a 1,000,000-user organization (500 pages
// of 2000) through the client over loopback HTTP, from page bodies
// recorded in memory (the server only copies bytes), with the rate limits
// out of the way. It reports users decoded per second and the peak live
// heap seen while a page is being handed over.
func BenchmarkDecodeOrgListing(b *testing.B) {
	const users, size = 1_000_000, umwire.MaxUsersPerPage
	const pages = users / size
	bodies := recordedPages(b, 5, size)
	var lastPage umwire.UsersPage
	if err := json.Unmarshal(bodies[0], &lastPage); err != nil {
		b.Fatal(err)
	}
	lastPage.LastPage = true
	lastBody, err := json.Marshal(lastPage)
	if err != nil {
		b.Fatal(err)
	}
	f := newFake(b, func(w http.ResponseWriter, r *http.Request) {
		p := pathPage(r)
		w.Header().Set(umwire.HeaderCurrentPage, strconv.Itoa(p))
		w.Header().Set(umwire.HeaderPageCount, strconv.Itoa(pages))
		w.Header().Set(umwire.HeaderTotalCount, strconv.Itoa(users))
		w.Header().Set(umwire.HeaderPageSize, strconv.Itoa(size))
		body := bodies[p%len(bodies)]
		if p == pages-1 {
			body = lastBody
		}
		_, _ = w.Write(body)
	})
	c := f.client(b, func(cfg *Config) { cfg.ReadLimit, cfg.AppLimit = 1<<30, 1<<30 })
	var peak uint64
	var ms runtime.MemStats
	b.ResetTimer()
	total := 0
	for b.Loop() {
		for p, err := range c.OrgUsers(context.Background(), OrgUsersOptions{}) {
			if err != nil {
				b.Fatal(err)
			}
			total += len(p.Users)
			if p.Page%25 == 0 {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
		}
	}
	b.StopTimer()
	if total != users*b.N {
		b.Fatalf("read %d users, want %d", total, users*b.N)
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "users/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
