package csvfile

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/orgsync/orgsync/source/mapping"
)

// writeBenchFile writes a CSV file of n users, each in two of ten
// directory groups, and returns its path.
func writeBenchFile(b *testing.B, n int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "users.csv")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "firstname,lastname,email,country,groups,type,username,domain")
	countries := []string{"US", "DE", "GB", "FR", "JP"}
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, "First%d,Last%d,user%d@example.com,%s,\"dept-%d,site-%d\",federatedID,,\n",
			i, i, i, countries[i%len(countries)], i%10, i%7)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkRead1M reads and maps a 1,000,000-row CSV file; the target is
// under 2 s an operation.
func BenchmarkRead1M(b *testing.B) {
	const rows = 1_000_000
	path := writeBenchFile(b, rows)
	m, err := mapping.New([]mapping.Rule{
		{Pattern: "dept-(.*)", Targets: []string{"Dept $1", "Everyone"}},
		{Directory: "site-3", Targets: []string{"Site Three"}},
	})
	if err != nil {
		b.Fatal(err)
	}
	src, err := Open("bench", Config{Path: path}, m)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := src.Read(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Users) != rows || len(res.Problems) != 0 {
			b.Fatalf("got %d users and %d problems, want %d and 0", len(res.Users), len(res.Problems), rows)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
