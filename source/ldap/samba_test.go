package ldap_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/secret/secrettest"
	"github.com/orgsync/orgsync/source/ldap"
	"github.com/orgsync/orgsync/source/ldap/internal/sambatest"
	"github.com/orgsync/orgsync/source/ldap/internal/slapdtest"
	"github.com/orgsync/orgsync/source/ldap/samba"
	"github.com/orgsync/orgsync/source/mapping"
)

// The tests below run against a real Active Directory domain controller
// (Samba), shared by the tests of this package and stopped by TestMain.
func TestMain(m *testing.M) { os.Exit(sambatest.Main(m)) }

func sambaRules() []mapping.Rule {
	return []mapping.Rule{
		{Directory: "Engineering", Targets: []string{"Engineering"}},
		{Directory: "Platform", Targets: []string{"Platform"}},
		{Directory: "Staff", Targets: []string{"All Staff"}},
		{Directory: "Field", Targets: []string{"Field"}},
		{Directory: "Big", Targets: []string{"Big"}},
		{Pattern: "cn=legacy-(.*)", Targets: []string{"Legacy $1"}},
	}
}

// sambaConfig is the documented Active Directory configuration: LDAPS with
// the domain's CA, the service account's user principal name, default
// filters and membership.
func sambaConfig(t *testing.T, srv *sambatest.Server) ldap.Config {
	return ldap.Config{
		URL: srv.LDAPSURL, TLS: ldap.TLS{CAFile: srv.TLS.CAFile},
		BindDN: sambatest.ServiceUPN, Password: secrettest.File(t, sambatest.ServicePass), PageSize: 500,
		Users:  ldap.Users{BaseDN: sambatest.People, Username: "{sAMAccountName}", Domain: sambatest.MailDomain},
		Groups: ldap.Groups{BaseDN: sambatest.Groups},
	}
}

// wantSamba is every user the fixture's enabled accounts with mail give,
// with their target groups: erin is disabled, carol has no mail.
func wantSamba() map[string][]string {
	want := map[string][]string{
		"alice@corp.example.com": {"Engineering", "All Staff"},
		"bob@corp.example.com":   {"Platform", "Engineering", "All Staff"},
		"dave@corp.example.com":  {"Legacy finance"},
		"frank@corp.example.com": nil,
		"gina@corp.example.com":  {"Field"},
	}
	for i := range sambatest.BigGroupSize {
		want[fmt.Sprintf("bulk%04d@corp.example.com", i)] = []string{"Big"}
	}
	return want
}

// wantPeople is wantSamba without OU=Bulk: what a read one level under
// OU=People (users.scope: one) gives.
func wantPeople() map[string][]string {
	want := wantSamba()
	for email := range want {
		if strings.HasPrefix(email, "bulk") {
			delete(want, email)
		}
	}
	return want
}

// onlyPeople reads one level under OU=People, for tests of what comes
// before the read (binds): a full read of the domain takes seconds.
func onlyPeople(cfg ldap.Config) ldap.Config {
	cfg.Users.Scope = "one"
	return cfg
}

func assertSambaUsers(t *testing.T, got map[string][]string) {
	t.Helper()
	assertUsers(t, got, wantSamba())
}

func assertUsers(t *testing.T, got, want map[string][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("read %d users, want %d", len(got), len(want))
	}
	for email, groups := range want {
		if g, ok := got[email]; !ok || !sameSet(g, groups) {
			t.Errorf("%s: groups %q (read: %v), want %q", email, g, ok, groups)
		}
	}
}

func groupsByEmail(t *testing.T, cfg ldap.Config) map[string][]string {
	t.Helper()
	res, err := read(t, cfg, newMapper(t, sambaRules()), nil)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	assertProblems(t, res.Problems, map[string]string{"CN=carol," + sambatest.People: "email"})
	out := map[string][]string{}
	for _, u := range res.Users.All() {
		out[u.Email] = u.Groups
	}
	return out
}

// TestActiveDirectoryOnSamba reads the domain with the default Active
// Directory settings (the flavor detected), over LDAPS and StartTLS:
// paged searches past the server's page limit, nested groups through
// the in-chain matching rule, a group of more than 1,500 members, the
// primary group, a group outside groups.baseDN through memberOf, disabled
// accounts left out, and a user without mail reported.
func TestActiveDirectoryOnSamba(t *testing.T) {
	t.Parallel()
	srv := sambatest.Domain(t)
	t.Run("ldaps", func(t *testing.T) {
		assertSambaUsers(t, groupsByEmail(t, sambaConfig(t, srv)))
	})
	t.Run("StartTLS", func(t *testing.T) {
		cfg := sambaConfig(t, srv)
		cfg.URL, cfg.StartTLS, cfg.BindDN = srv.URL, true, `CORP\`+sambatest.ServiceName
		assertSambaUsers(t, groupsByEmail(t, cfg))
	})
	t.Run("DN as bind name", func(t *testing.T) {
		cfg := sambaConfig(t, srv)
		cfg.BindDN = sambatest.ServiceDN
		assertUsers(t, groupsByEmail(t, onlyPeople(cfg)), wantPeople())
	})
	t.Run("fields", func(t *testing.T) {
		res, err := read(t, onlyPeople(sambaConfig(t, srv)), newMapper(t, sambaRules()), nil)
		if err != nil {
			t.Fatal(err)
		}
		a := byEmail(res.Users)["alice@corp.example.com"]
		if a.Username != "alice" || a.FirstName != "Alice" || a.LastName != "Archer" || a.Country != "DE" || a.Domain != sambatest.MailDomain {
			t.Errorf("alice = %+v", a)
		}
	})
}

// Read through member lists instead of the in-chain rule: the groups'
// member values (1,600 of them in one group), nested groups resolved by
// the source, primary groups through objectSid.
func TestActiveDirectoryMemberListsOnSamba(t *testing.T) {
	t.Parallel()
	srv := sambatest.Domain(t)
	cfg := sambaConfig(t, srv)
	cfg.Flavor = ldap.FlavorOpenLDAP
	cfg.Users.Filter, cfg.Groups.Filter = ldap.ADUserFilter, ldap.ADGroupFilter
	cfg.Groups.Membership = []string{ldap.MemberDN, ldap.MemberOf, ldap.PrimaryGroup}
	cfg.BindDN = sambatest.ServiceDN // OpenLDAP's flavor binds with a DN
	assertSambaUsers(t, groupsByEmail(t, cfg))
}

// What goes wrong with a real domain controller, and what the errors say
// to do.
func TestActiveDirectoryRefusalsOnSamba(t *testing.T) {
	t.Parallel()
	srv := sambatest.Domain(t)
	m := newMapper(t, sambaRules())
	otherCA := slapdtest.NewTLS(t).CAFile // a CA that did not sign the server's certificate
	wrongPassword := secrettest.File(t, "not-it")
	for _, tc := range []struct {
		name   string
		change func(*ldap.Config)
		want   []string
	}{
		{"simple bind without TLS", func(c *ldap.Config) { c.URL = srv.URL }, []string{"use ldaps:// or startTLS, or a Kerberos bind"}},
		{"untrusted certificate", func(c *ldap.Config) { c.TLS.CAFile = otherCA }, []string{"not signed by the authority in tls.caFile", otherCA, "an authority of the same name but another key"}},
		{"untrusted certificate over StartTLS", func(c *ldap.Config) { c.URL, c.StartTLS, c.TLS.CAFile = srv.URL, true, otherCA }, []string{"StartTLS", "tls.caFile"}},
		{"name not in the certificate", func(c *ldap.Config) { c.TLS.ServerName = "dc9.corp.example.com" }, []string{samba.HostName, "tls.serverName"}},
		{"wrong password", func(c *ldap.Config) { c.Password = wrongPassword }, []string{"invalid credentials", wrongPassword.String()}},
		{"missing mapped group", func(c *ldap.Config) {}, []string{"CN=Gone"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := sambaConfig(t, srv)
			tc.change(&cfg)
			mapper := m
			if tc.name == "missing mapped group" {
				mapper = newMapper(t, append(sambaRules(), mapping.Rule{Directory: "CN=Gone," + sambatest.Groups, Targets: []string{"Gone"}}))
			}
			_, err := read(t, cfg, mapper, nil)
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("err = %v, want %q in it", err, w)
				}
			}
			if err != nil && strings.Contains(err.Error(), sambatest.ServicePass) {
				t.Fatalf("the error holds the password: %v", err)
			}
		})
	}
}
