// Package sourcetest holds what the sources' tests share: writing an
// input file and reading it through a source, the mapping of the fake
// directories' demo data, and timing a read against raw paging.
package sourcetest

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/internal/util/memlimit"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/mapping"
)

// Identity returns the mapping rule that maps every directory group to the
// target group of the same name.
func Identity() []mapping.Rule {
	return []mapping.Rule{{Pattern: "(.*)", Targets: []string{"$1"}}}
}

// Read writes content to a file called name in a new temporary directory,
// opens a source on it with open (given the file's path and the mapper of
// rules) and reads it. It returns Read's result and error, and the path.
func Read(t testing.TB, name, content string, rules []mapping.Rule,
	open func(path string, m *mapping.Mapper) (source.Source, error)) (*source.Result, string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	src, err := open(path, Mapper(t, rules))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	res, err := src.Read(context.Background())
	return res, path, err
}

// DemoRules map the groups of the fake directories' demo data
// (entrafake.Demo, oktafake.Demo) by name.
func DemoRules() []mapping.Rule {
	return []mapping.Rule{
		{Directory: "Engineering Staff", Targets: []string{"Engineering"}},
		{Directory: "Design", Targets: []string{"Design"}},
		{Directory: "Marketing", Targets: []string{"Marketing"}},
	}
}

// GroupsByEmail returns each user's target groups, sorted, by email.
func GroupsByEmail(users reconcile.Users) map[string][]string {
	out := map[string][]string{}
	for _, u := range users.All() {
		g := slices.Clone(u.Groups)
		slices.Sort(g)
		out[u.Email] = g
	}
	return out
}

// CompareRaw runs raw and then read in each iteration of b and reports
// their mean times (raw-ms/op, source-ms/op), the ratio of the means
// (source/raw) and the ratio of the fastest of each (best-source/raw): a
// source's read against plain HTTP paging of the same server, side by
// side in one run. On a shared machine the fastest runs are the ones the
// other load disturbed least, so best-source/raw varies less. It also
// reports the process's peak resident memory over the runs
// (peak-rss-MiB), the fake's included.
func CompareRaw(b *testing.B, raw, read func()) {
	var rawTime, readTime time.Duration
	bestRaw, bestRead := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	memlimit.ResetPeak()
	for b.Loop() {
		t := time.Now()
		raw()
		d := time.Since(t)
		rawTime, bestRaw = rawTime+d, min(bestRaw, d)
		t = time.Now()
		read()
		d = time.Since(t)
		readTime, bestRead = readTime+d, min(bestRead, d)
	}
	n := float64(b.N)
	b.ReportMetric(rawTime.Seconds()*1000/n, "raw-ms/op")
	b.ReportMetric(readTime.Seconds()*1000/n, "source-ms/op")
	b.ReportMetric(readTime.Seconds()/rawTime.Seconds(), "source/raw")
	b.ReportMetric(bestRead.Seconds()/bestRaw.Seconds(), "best-source/raw")
	b.ReportMetric(float64(memlimit.PeakRSS())/(1<<20), "peak-rss-MiB")
}

// GroupExpressions compiles a filter, a groups and a set expression that
// read every record's directory groups (three each) and keep every record
// with its groups: the cloud sources' benchmarks with expressions.
func GroupExpressions(t testing.TB) *expr.Program {
	t.Helper()
	p, err := expr.Compile(expr.Config{Filter: `size(directoryGroups) == 3`, Groups: `directoryGroups.filter(g, g == "none")`,
		Set: map[string]string{"lastname": `user.lastname.upperAscii()`}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Mapper compiles rules, failing t on an error.
func Mapper(t testing.TB, rules []mapping.Rule) *mapping.Mapper {
	t.Helper()
	m, err := mapping.New(rules)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// ReadN reads src and fails t unless it gives n users, the last of them
// with groups target groups.
func ReadN(t testing.TB, src source.Source, n, groups int) {
	t.Helper()
	res, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Users.Len() != n || len(res.Users.At(n-1).Groups) != groups {
		t.Fatalf("read %d users, want %d", res.Users.Len(), n)
	}
}

// WriteFile writes content to path (mode 0600), failing t on an error.
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// CheckProblems fails t (naming the case name) unless errs are exactly
// the keys of want, each reason containing the key's text.
func CheckProblems(t testing.TB, name string, errs []diag.FieldError, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for _, fe := range errs {
		got[fe.Field] = fe.Reason
	}
	if len(got) != len(want) {
		t.Errorf("%s: %v, want %v", name, got, want)
	}
	for k, w := range want {
		if !strings.Contains(got[k], w) {
			t.Errorf("%s: %s: %q, want %q", name, k, got[k], w)
		}
	}
}
