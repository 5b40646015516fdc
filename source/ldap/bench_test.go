package ldap_test

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/orgsync/orgsync/internal/util/memlimit"
	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/ldap"
)

// BenchmarkRead100k reads every user of the directory that
// scripts/ldap-bench.sh starts (100,000 users) through the whole source:
// paged search, attribute templates, validation. The script passes the
// server in ORGSYNC_LDAP_BENCH_URL, the bind password in
// ORGSYNC_LDAP_BENCH_PW and the expected count in ORGSYNC_LDAP_BENCH_USERS.
func BenchmarkRead100k(b *testing.B) {
	benchRead(b, func(ctx context.Context, src source.Source) (*source.Result, error) { return src.Read(ctx) })
}

// BenchmarkRead100kGoLDAP is BenchmarkRead100k over go-ldap's own client
// instead of the source's decoder, page by page with Conn.Search or
// streamed with Conn.SearchAsync: the comparison that justifies wire.go.
func BenchmarkRead100kGoLDAP(b *testing.B) {
	for _, m := range []struct {
		name string
		mode ldap.GoLDAPMode
	}{{"Search", ldap.GoLDAPSearch}, {"SearchAsync", ldap.GoLDAPSearchAsync}} {
		b.Run(m.name, func(b *testing.B) {
			benchRead(b, func(ctx context.Context, src source.Source) (*source.Result, error) {
				return ldap.ReadWithGoLDAP(ctx, src, m.mode)
			})
		})
	}
}

// benchRead opens the source on the script's server and times read.
func benchRead(b *testing.B, read func(context.Context, source.Source) (*source.Result, error)) {
	if os.Getenv("ORGSYNC_LDAP_BENCH_URL") == "" {
		b.Skip("needs the 100,000-user slapd of scripts/ldap-bench.sh (set ORGSYNC_LDAP_BENCH_URL)")
	}
	url := os.Getenv("ORGSYNC_LDAP_BENCH_URL")
	want, _ := strconv.Atoi(os.Getenv("ORGSYNC_LDAP_BENCH_USERS"))
	cfg := ldap.Config{
		Flavor: ldap.FlavorOpenLDAP, URL: url, BindDN: os.Getenv("ORGSYNC_LDAP_BENCH_BINDDN"),
		Password: secret.Ref{Env: "ORGSYNC_LDAP_BENCH_PW"}, PageSize: 1000,
		Users: ldap.Users{BaseDN: os.Getenv("ORGSYNC_LDAP_BENCH_BASE")},
	}
	src, err := cfg.Open("bench", source.Options{})
	if err != nil {
		b.Fatal(err)
	}
	memlimit.ResetPeak()
	for b.Loop() {
		res, err := read(context.Background(), src)
		if err != nil {
			b.Fatal(err)
		}
		if res.Users.Len() != want || len(res.Problems) != 0 {
			b.Fatalf("read %d users and %d problems, want %d users", res.Users.Len(), len(res.Problems), want)
		}
	}
	b.ReportMetric(float64(want)*float64(b.N)/b.Elapsed().Seconds(), "users/s")
	b.ReportMetric(float64(memlimit.PeakRSS())/(1<<20), "peak-rss-MiB")
}
