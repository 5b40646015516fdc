package ldap_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/ldap"
	"github.com/orgsync/orgsync/source/ldap/internal/sambatest"
	"github.com/orgsync/orgsync/source/ldap/samba"
)

// adBenchUsers is the size of the benchmark's domain.
const adBenchUsers = 10000

// BenchmarkReadAD10k reads the 10,000 users of a Samba domain over LDAPS,
// with the source (paged search with the default Active Directory filter,
// templates and validation) and with ldapsearch over the same connection
// type, bind, filter, attributes and page size (its output counted); and
// with the source over ldap:// after a Kerberos bind (messages signed) and
// an NTLM bind (messages sealed and signed). It
// makes the domain (minutes the first time; cached after), so it runs only
// with ORGSYNC_AD_BENCH=1: `make bench-ad`.
func BenchmarkReadAD10k(b *testing.B) {
	if os.Getenv("ORGSYNC_AD_BENCH") != "1" {
		b.Skip("set ORGSYNC_AD_BENCH=1 (make bench-ad): it provisions a 10,000-user Samba domain")
	}
	srv := sambatest.DomainWith(b, sambatest.BulkUsers(adBenchUsers), sambatest.FixturePasswords())
	b.Setenv("ORGSYNC_AD_BENCH_PW", sambatest.ServicePass)
	cfg := ldap.Config{
		URL: srv.LDAPSURL, TLS: ldap.TLS{CAFile: srv.TLS.CAFile}, BindDN: sambatest.ServiceUPN,
		Password: secret.Ref{Env: "ORGSYNC_AD_BENCH_PW"}, PageSize: 1000,
		Users: ldap.Users{BaseDN: sambatest.People},
	}
	kt := filepath.Join(b.TempDir(), "svc.keytab")
	if err := srv.ExportKeytab(servicePrincipal, kt); err != nil {
		b.Fatal(err)
	}
	overLDAP := func(c ldap.Config) ldap.Config {
		c.URL, c.TLS, c.BindDN = srv.URL, ldap.TLS{}, `CORP\`+sambatest.ServiceName
		return c
	}
	kerberos := overLDAP(cfg)
	kerberos.Bind, kerberos.BindDN, kerberos.Password = ldap.BindKerberos, servicePrincipal, secret.Ref{}
	kerberos.Kerberos = ldap.Kerberos{Keytab: kt, Config: srv.Krb5Conf, SPN: samba.SPN}
	ntlm := overLDAP(cfg)
	ntlm.Bind = ldap.BindNTLM
	for _, v := range []struct {
		name string
		cfg  ldap.Config
	}{{"orgsync", cfg}, {"orgsync-kerberos-signed", kerberos}, {"orgsync-ntlm-sealed", ntlm}} {
		b.Run(v.name, func(b *testing.B) { benchADRead(b, v.cfg) })
	}
	b.Run("ldapsearch", func(b *testing.B) {
		pw := filepath.Join(b.TempDir(), "pw")
		if err := os.WriteFile(pw, []byte(sambatest.ServicePass), 0o600); err != nil {
			b.Fatal(err)
		}
		// The attributes the source asks for with the default templates and
		// Active Directory membership modes.
		args := []string{"-LLL", "-x", "-H", srv.LDAPSURL, "-D", sambatest.ServiceUPN, "-y", pw, "-b", sambatest.People,
			"-E", "pr=1000/noprompt", ldap.ADUserFilter, "mail", "givenName", "sn", "c", "memberOf", "primaryGroupID"}
		for b.Loop() {
			cmd := exec.Command("ldapsearch", args...)
			cmd.Env = append(os.Environ(), "LDAPTLS_CACERT="+srv.TLS.CAFile)
			var out bytes.Buffer
			cmd.Stdout = &out
			if err := cmd.Run(); err != nil {
				b.Fatalf("ldapsearch: %v", err)
			}
			if n := strings.Count(out.String(), "\ndn: ") + 1; n != adBenchUsers {
				b.Fatalf("ldapsearch read %d entries, want %d", n, adBenchUsers)
			}
		}
		b.ReportMetric(adBenchUsers*float64(b.N)/b.Elapsed().Seconds(), "users/s")
	})
}

// benchADRead times the source's read of the benchmark's domain with cfg.
func benchADRead(b *testing.B, cfg ldap.Config) {
	src, err := cfg.Open("bench", source.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := src.Read(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if res.Users.Len() != adBenchUsers {
			b.Fatalf("read %d users, want %d", res.Users.Len(), adBenchUsers)
		}
	}
	b.ReportMetric(adBenchUsers*float64(b.N)/b.Elapsed().Seconds(), "users/s")
}
