package ldap_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/internal/util/testenv"
	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/secret/secrettest"
	"github.com/orgsync/orgsync/source/ldap"
	"github.com/orgsync/orgsync/source/ldap/internal/sambatest"
	"github.com/orgsync/orgsync/source/ldap/samba"
)

const servicePrincipal = sambatest.ServiceName + "@" + samba.Realm

// keytab exports the service account's keys from the domain.
func keytab(t *testing.T, srv *sambatest.Server, principal string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "svc.keytab")
	if err := srv.ExportKeytab(principal, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// kerberosConfig binds with Kerberos over plain LDAP: the server requires
// integrity protection of such a bind, which the source negotiates.
func kerberosConfig(t *testing.T, srv *sambatest.Server, k ldap.Kerberos) ldap.Config {
	cfg := sambaConfig(t, srv)
	cfg.URL, cfg.TLS = srv.URL, ldap.TLS{}
	cfg.Bind, cfg.BindDN, cfg.Password = ldap.BindKerberos, servicePrincipal, secret.Ref{}
	if k.Config == "" {
		k.Config = srv.Krb5Conf
	}
	if k.SPN == "" {
		k.SPN = samba.SPN
	}
	cfg.Kerberos = k
	return cfg
}

// TestKerberosBindOnSamba reads the domain after a Kerberos bind with a
// keytab, a password and a credentials cache, over LDAP with integrity
// protection, with the realm and KDC from krb5.conf or from the
// configuration. (Over TLS Samba refuses it by default: see
// TestKerberosErrorsOnSamba.)
func TestKerberosBindOnSamba(t *testing.T) {
	t.Parallel()
	srv := sambatest.Domain(t)
	kt := keytab(t, srv, servicePrincipal)
	emptyConf := filepath.Join(t.TempDir(), "krb5.conf")
	if err := os.WriteFile(emptyConf, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change func(*ldap.Config)
	}{
		{"keytab over LDAP, the whole domain", func(c *ldap.Config) { c.Kerberos.Keytab, c.Users.Scope = kt, "" }},
		{"keytab, SPN from tls.serverName", func(c *ldap.Config) {
			c.TLS.ServerName = samba.HostName
			c.Kerberos.Keytab, c.Kerberos.SPN = kt, ""
		}},
		{"realm and KDC from the configuration", func(c *ldap.Config) {
			c.Kerberos = ldap.Kerberos{Keytab: kt, Realm: samba.Realm, KDC: []string{srv.KDC}, SPN: samba.SPN, Config: emptyConf}
			c.BindDN = `CORP\` + sambatest.ServiceName
		}},
		{"password", func(c *ldap.Config) {
			c.Password = secrettest.File(t, sambatest.ServicePass)
		}},
		{"credentials cache", func(c *ldap.Config) {
			c.Kerberos.CCache = kinit(t, srv, kt)
			c.BindDN = ""
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := onlyPeople(kerberosConfig(t, srv, ldap.Kerberos{}))
			tc.change(&cfg)
			want := wantPeople()
			if cfg.Users.Scope == "" {
				want = wantSamba()
			}
			assertUsers(t, groupsByEmail(t, cfg), want)
		})
	}
}

// kinit gets a ticket for the service account into a new credentials
// cache with MIT's kinit, as an administrator would.
func kinit(t *testing.T, srv *sambatest.Server, kt string) string {
	t.Helper()
	kinit := testenv.Program(t, "krb5-user", "kinit")
	cache := filepath.Join(t.TempDir(), "ccache")
	cmd := exec.Command(kinit, "-k", "-t", kt, servicePrincipal)
	cmd.Env = append(os.Environ(), "KRB5_CONFIG="+srv.Krb5Conf, "KRB5CCNAME=FILE:"+cache)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kinit: %v\n%s", err, out)
	}
	return cache
}

// A Kerberos bind that cannot work says what to fix.
func TestKerberosErrorsOnSamba(t *testing.T) {
	t.Parallel()
	srv := sambatest.Domain(t)
	kt := keytab(t, srv, servicePrincipal)
	adminKeytab := keytab(t, srv, "Administrator@"+samba.Realm)
	for _, tc := range []struct {
		name   string
		change func(*ldap.Config)
		want   []string
	}{
		{"unknown principal", func(c *ldap.Config) {
			c.BindDN, c.Password = "nobody@"+samba.Realm, secrettest.File(t, "whatever-1")
		}, []string{"does not know the principal nobody@CORP.EXAMPLE.COM", "bindDN"}},
		{"wrong password", func(c *ldap.Config) {
			c.Password = secrettest.File(t, "not-the-password-1")
		}, []string{"refused the key of " + servicePrincipal, "password is wrong"}},
		{"keytab of another principal", func(c *ldap.Config) { c.Kerberos.Keytab = adminKeytab }, []string{"keytab has no key for " + servicePrincipal}},
		{"unreachable KDC", func(c *ldap.Config) {
			c.Kerberos = ldap.Kerberos{Keytab: kt, Realm: samba.Realm, KDC: []string{"127.0.0.1:1"}, SPN: samba.SPN, Config: filepath.Join(t.TempDir(), "none")}
			if err := os.WriteFile(c.Kerberos.Config, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, []string{"no KDC answered", "kerberos.kdc"}},
		{"over LDAPS", func(c *ldap.Config) { c.URL, c.TLS = srv.LDAPSURL, ldap.TLS{CAFile: srv.TLS.CAFile} }, []string{"bind over ldap:// without startTLS", "allow_sasl_over_tls"}},
		{"over StartTLS", func(c *ldap.Config) { c.StartTLS, c.TLS = true, ldap.TLS{CAFile: srv.TLS.CAFile} }, []string{"bind over ldap:// without startTLS"}},
		{"unknown service principal", func(c *ldap.Config) { c.Kerberos.Keytab, c.Kerberos.SPN = kt, "ldap/dc9.corp.example.com" }, []string{"does not know the service principal ldap/dc9.corp.example.com", "kerberos.spn"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := kerberosConfig(t, srv, ldap.Kerberos{Keytab: kt})
			tc.change(&cfg)
			if cfg.Password.IsSet() {
				cfg.Kerberos.Keytab = ""
			}
			_, err := read(t, cfg, newMapper(t, sambaRules()), nil)
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("err = %v, want %q in it", err, w)
				}
			}
		})
	}
}
