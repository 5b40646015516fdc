package ldap_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/ldap"
	"github.com/orgsync/orgsync/source/ldap/dirsrv"
	"github.com/orgsync/orgsync/source/ldap/internal/dirsrvtest"
)

// dirsrvBenchUsers is the size of the benchmark's directory.
const dirsrvBenchUsers = 100000

// BenchmarkRead389DS100k reads the 100,000 users of a 389 Directory
// Server (389-ds's default limits; the reading account has none of its
// own) over ldap://, with the source (flavor 389ds: the default filter
// with locked accounts left out, paged by 1000, templates and validation)
// and with ldapsearch asking the same (filter, attributes, page size; its
// output counted). "split" is the way around the server's limits
// considered for the account that has them: the same read as 100 searches
// of the users whose cn begins with each prefix, each under the
// look-through limit. It makes the instance (minutes the first time;
// cached after), so it runs only with ORGSYNC_389DS_BENCH=1.
func BenchmarkRead389DS100k(b *testing.B) {
	if os.Getenv("ORGSYNC_389DS_BENCH") != "1" {
		b.Skip("set ORGSYNC_389DS_BENCH=1: it makes a 100,000-user 389 Directory Server instance")
	}
	srv := dirsrvtest.StartWith(b, dirsrv.Options{LDIF: dirsrvtest.BulkUsers(dirsrvBenchUsers)})
	b.Setenv("ORGSYNC_389DS_BENCH_PW", dirsrvtest.AccountPassword)
	cfg := ldap.Config{
		Flavor: ldap.Flavor389DS, URL: srv.URL, BindDN: dirsrvtest.Reader,
		Password: secret.Ref{Env: "ORGSYNC_389DS_BENCH_PW"}, PageSize: 1000,
		Users: ldap.Users{BaseDN: dirsrvtest.People},
	}
	pw := filepath.Join(b.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte(dirsrvtest.AccountPassword), 0o600); err != nil {
		b.Fatal(err)
	}
	args := []string{"-LLL", "-x", "-H", srv.URL, "-D", dirsrvtest.Reader, "-y", pw, "-b", dirsrvtest.People,
		"-E", "pr=1000/noprompt", "(&" + ldap.OpenLDAPUserFilter + "(!" + ldap.LockedFilter + "))", "mail", "givenName", "sn", "c", "uid", "memberOf"}
	ldapsearch(b, args) // the server's caches warm, as for every run after it
	b.Run("orgsync", func(b *testing.B) {
		src, err := cfg.Open("bench", source.Options{})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			benchCount(b, src)
		}
		b.ReportMetric(dirsrvBenchUsers*float64(b.N)/b.Elapsed().Seconds(), "users/s")
	})
	b.Run("ldapsearch", func(b *testing.B) {
		for b.Loop() {
			ldapsearch(b, args)
		}
		b.ReportMetric(dirsrvBenchUsers*float64(b.N)/b.Elapsed().Seconds(), "users/s")
	})
	b.Run("split", func(b *testing.B) {
		limited := cfg
		limited.BindDN = dirsrvtest.Limited
		if _, err := readOnce(limited); err == nil || !strings.Contains(err.Error(), "nsslapd-lookthroughlimit") {
			b.Fatalf("the limited account's whole read: %v, want the look-through limit", err)
		}
		for b.Loop() {
			total := 0
			for _, prefix := range cnPrefixes() {
				part := limited
				part.Users.Filter = "(cn=User " + prefix + ")"
				res, err := readOnce(part)
				if err != nil {
					b.Fatalf("%s: %v", part.Users.Filter, err)
				}
				total += res.Users.Len()
			}
			if total != dirsrvBenchUsers {
				b.Fatalf("the split read gave %d users, want %d", total, dirsrvBenchUsers)
			}
		}
		b.ReportMetric(dirsrvBenchUsers*float64(b.N)/b.Elapsed().Seconds(), "users/s")
	})
}

// cnPrefixes splits "User 1" … "User 100000" into 99 parts of at most
// 1,112 entries: "10*" … "99*", and the nine one-digit names.
func cnPrefixes() []string {
	var out []string
	for i := 10; i <= 99; i++ {
		out = append(out, fmt.Sprintf("%d*", i))
	}
	for i := 1; i <= 9; i++ {
		out = append(out, fmt.Sprint(i))
	}
	return out
}

// ldapsearch runs ldapsearch with args and checks that it read every user.
func ldapsearch(b *testing.B, args []string) {
	var out bytes.Buffer
	cmd := exec.Command("ldapsearch", args...)
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		b.Fatalf("ldapsearch: %v", err)
	}
	if n := strings.Count(out.String(), "\ndn: ") + 1; n != dirsrvBenchUsers {
		b.Fatalf("ldapsearch read %d entries, want %d", n, dirsrvBenchUsers)
	}
}

func readOnce(cfg ldap.Config) (*source.Result, error) {
	src, err := cfg.Open("bench", source.Options{})
	if err != nil {
		return nil, err
	}
	return src.Read(context.Background())
}

func benchCount(b *testing.B, src source.Source) {
	res, err := src.Read(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	if res.Users.Len() != dirsrvBenchUsers || len(res.Problems) != 0 {
		b.Fatalf("read %d users and %d problems, want %d users", res.Users.Len(), len(res.Problems), dirsrvBenchUsers)
	}
}
