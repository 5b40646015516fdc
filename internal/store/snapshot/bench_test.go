package snapshot

import (
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/util/memlimit"
	"github.com/orgsync/orgsync/reconcile"
)

// million is an organization of 1,000,000 users as the listing shows them:
// 90% Enterprise IDs, 10% Federated IDs with a username, names, a
// country, one to three of 18 groups each.
func million() *Snapshot {
	groups := make([]string, 18)
	for i := range groups {
		groups[i] = "Group " + strconv.Itoa(i)
	}
	s := &Snapshot{Fingerprint: Fingerprint("1234ABCD@VendorOrg", "https://um.example.com"), Org: "1234ABCD@VendorOrg",
		FullRead: time.Now(), Saved: time.Now()}
	s.Users.Grow(1_000_000)
	for i := range 1_000_000 {
		n := strconv.Itoa(i)
		u := reconcile.User{Type: reconcile.EnterpriseID, Email: "user" + n + "@example.com", Domain: "example.com",
			FirstName: "First" + n, LastName: "Last" + n, Country: "US"}
		u.Username = u.Email
		if i%10 == 0 {
			u.Type, u.Username, u.Domain = reconcile.FederatedID, "fu"+n, "fed.example.net"
		}
		for g := range 1 + i%3 {
			u.Groups = append(u.Groups, groups[(i+g*7)%len(groups)])
		}
		s.Users.Add(u)
	}
	return s
}

// BenchmarkSave1M saves a snapshot of 1,000,000 users (goal < 2 s).
//
//	go test ./internal/store/snapshot -run '^$' -bench 1M -benchtime 3x
func BenchmarkSave1M(b *testing.B) {
	st := Open(b.TempDir())
	s := million()
	b.ResetTimer()
	memlimit.ResetPeak()
	for range b.N {
		if err := st.Save("main", s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(memlimit.PeakRSS())/(1<<20), "peak-rss-MiB") // the snapshot's users included
}

// BenchmarkLoad1M loads a snapshot of 1,000,000 users (goal < 2 s) and
// reports the heap it holds.
func BenchmarkLoad1M(b *testing.B) {
	st := Open(b.TempDir())
	if err := st.Save("main", million()); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	b.ResetTimer()
	memlimit.ResetPeak()
	var s *Snapshot
	var err error
	for range b.N {
		if s, err = st.Load("main"); err != nil || s.Users.Len() != 1_000_000 {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "MiB-held")
	b.ReportMetric(float64(memlimit.PeakRSS())/(1<<20), "peak-rss-MiB")
	runtime.KeepAlive(s)
}
