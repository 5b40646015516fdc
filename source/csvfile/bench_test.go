package csvfile

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/util/memlimit"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/mapping"
)

// writeBenchFile writes a CSV file of n users, each in two of ten
// directory groups, and returns its path. With extra, each row also has a
// department and a display name column, for expressions.
func writeBenchFile(b *testing.B, n int, extra bool) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "users.csv")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	header := "firstname,lastname,email,country,groups,type,username,domain"
	if extra {
		header += ",department,displayName"
	}
	fmt.Fprintln(w, header)
	countries := []string{"US", "DE", "GB", "FR", "JP", "CN"}
	departments := []string{"Design", "Sales", "Engineering"}
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, "First%d,Last%d,user%d@example.com,%s,\"dept-%d,site-%d\",federatedID,,", i, i, i, countries[i%len(countries)], i%10, i%7)
		if extra {
			fmt.Fprintf(w, ",%s,Given%d Family%d", departments[i%len(departments)], i, i)
		}
		fmt.Fprintln(w)
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
	path := writeBenchFile(b, rows, false)
	m, err := mapping.New([]mapping.Rule{
		{Pattern: "dept-(.*)", Targets: []string{"Dept $1", "Everyone"}},
		{Directory: "site-3", Targets: []string{"Site Three"}},
	})
	if err != nil {
		b.Fatal(err)
	}
	cfg := Config{Path: path}
	src, err := cfg.Open("bench", source.Options{Mapper: m})
	if err != nil {
		b.Fatal(err)
	}
	benchRead(b, src, rows, rows)
}

// BenchmarkRead1MExpressions reads a file of 1,000,000 rows with two
// more columns (department, displayName) without expressions ("none"),
// then through a filter (one row in six is left out), a groups and a set
// expression over those columns ("filter+groups+set"); the target is
// under 3 s an operation. ns/user is the cost per row.
func BenchmarkRead1MExpressions(b *testing.B) {
	const rows = 1_000_000
	path := writeBenchFile(b, rows, true)
	m, err := mapping.New([]mapping.Rule{{Pattern: "dept-(.*)", Targets: []string{"Dept $1", "Everyone"}}})
	if err != nil {
		b.Fatal(err)
	}
	p, err := expr.Compile(expr.Config{
		Filter: `user.country != "CN"`,
		Groups: `user.attributes.department == "Design" ? ["Design"] : []`,
		Set:    map[string]string{"firstname": `user.attributes.displayName.split(" ")[0]`},
	})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		prog *expr.Program
		want int
	}{{"none", nil, rows}, {"filter+groups+set", p, rows - rows/6}} {
		b.Run(bc.name, func(b *testing.B) {
			cfg := Config{Path: path}
			src, err := cfg.Open("bench", source.Options{Mapper: m, Expressions: bc.prog})
			if err != nil {
				b.Fatal(err)
			}
			benchRead(b, src, rows, bc.want)
		})
	}
}

// benchRead reads src b.N times, checking that it gives want users out
// of rows without a problem.
func benchRead(b *testing.B, src source.Source, rows, want int) {
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime(b)
	memlimit.ResetPeak()
	for i := 0; i < b.N; i++ {
		res, err := src.Read(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if res.Users.Len() != want || len(res.Problems) != 0 {
			b.Fatalf("got %d users and %d problems, want %d and 0", res.Users.Len(), len(res.Problems), want)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows)/float64(b.N), "ns/user")
	b.ReportMetric((cpuTime(b)-cpu).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(memlimit.PeakRSS())/(1<<20), "peak-rss-MiB")
}

// cpuTime is the CPU time the process has used so far, in all its threads
// (the garbage collector's included): on a shared machine it varies less
// with the load than the time an operation takes.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
