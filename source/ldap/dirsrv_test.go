package ldap_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/secret/secrettest"
	"github.com/orgsync/orgsync/source/ldap"
	"github.com/orgsync/orgsync/source/ldap/dirsrv"
	"github.com/orgsync/orgsync/source/ldap/internal/dirsrvtest"
	"github.com/orgsync/orgsync/source/ldap/internal/slapdtest"
	"github.com/orgsync/orgsync/source/mapping"
)

// The tests below run against a real 389 Directory Server holding
// FreeIPA's tree (dirsrvtest.Fixture), each test its own server.

func ipaRules() []mapping.Rule {
	return []mapping.Rule{
		{Directory: "engineering", Targets: []string{"Engineering"}},
		{Directory: "platform", Targets: []string{"Platform"}},
		{Directory: "finance", Targets: []string{"Finance"}},
		{Directory: "big", Targets: []string{"Big"}},
		{Pattern: "cn=legacy-(.*)", Targets: []string{"Legacy $1"}},
	}
}

// ipaConfig is the documented FreeIPA configuration: flavor freeipa (its
// layout's base DNs), LDAPS with the IPA CA and the server's host name,
// orgsync's system account under cn=sysaccounts,cn=etc.
func ipaConfig(t *testing.T, srv *dirsrv.Server) ldap.Config {
	return ldap.Config{
		Flavor: ldap.FlavorFreeIPA, URL: srv.LDAPSURL, TLS: ldap.TLS{CAFile: srv.CAFile, ServerName: dirsrv.HostName},
		BindDN: dirsrvtest.Reader, Password: secrettest.File(t, dirsrvtest.AccountPassword),
	}
}

// wantIPA is every user the fixture's unlocked accounts with mail give,
// with their target groups: lena, lars and liv are locked, carol has no
// mail, stan and percy are staged and preserved; frank's legacy-ops is
// outside groups.baseDN and known through memberOf, gina's legacy-audit is
// a groupOfUniqueNames there, which memberOf does not track.
func wantIPA() map[string][]string {
	want := map[string][]string{
		"alice@example.com": {"Engineering"},
		"bob@example.com":   {"Platform", "Engineering"},
		"dave@example.com":  {"Finance"},
		"frank@example.com": {"Legacy ops"},
		"gina@example.com":  nil,
		"jose@example.com":  nil,
		"wei@example.com":   nil,
		"emil@example.com":  nil,
	}
	for i := range dirsrvtest.BigGroupSize {
		want[fmt.Sprintf("bulk%04d@example.com", i)] = []string{"Big"}
	}
	return want
}

// readIPA reads with cfg and the fixture's rules, and returns each user's
// groups by email; carol (no mail) must be the one problem.
func readIPA(t *testing.T, cfg ldap.Config) map[string][]string {
	t.Helper()
	res, err := read(t, cfg, newMapper(t, ipaRules()), nil)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	assertProblems(t, res.Problems, map[string]string{"uid=carol," + dirsrvtest.Users: "email"})
	out := map[string][]string{}
	for _, u := range res.Users.All() {
		out[u.Email] = u.Groups
	}
	return out
}

// TestFreeIPAOn389DS reads FreeIPA's tree with the documented
// configuration: users and groups under cn=accounts by default, locked
// accounts left out whatever the case of nsAccountLock, nested groups,
// groupOfUniqueNames, memberOf for a group outside groups.baseDN, a group
// of more members than the server's size limit, names with diacritics and
// CJK; with users.baseDN at the suffix, staged and preserved users (and
// the system accounts) are still not read.
func TestFreeIPAOn389DS(t *testing.T) {
	t.Parallel()
	srv := dirsrvtest.Start(t)
	t.Run("layout defaults", func(t *testing.T) {
		assertUsers(t, readIPA(t, ipaConfig(t, srv)), wantIPA())
	})
	t.Run("users.baseDN at the suffix", func(t *testing.T) {
		cfg := ipaConfig(t, srv)
		cfg.Users.BaseDN = dirsrvtest.Suffix
		assertUsers(t, readIPA(t, cfg), wantIPA())
	})
	t.Run("StartTLS", func(t *testing.T) {
		cfg := ipaConfig(t, srv)
		cfg.URL, cfg.StartTLS = srv.URL, true
		assertUsers(t, readIPA(t, cfg), wantIPA())
	})
	t.Run("fields", func(t *testing.T) {
		cfg := ipaConfig(t, srv)
		cfg.Users.DefaultCountry = "DE"
		res, err := read(t, cfg, newMapper(t, ipaRules()), nil)
		if err != nil {
			t.Fatal(err)
		}
		users := byEmail(res.Users)
		if u := users["jose@example.com"]; u.FirstName != "José" || u.LastName != "Núñez" || u.Country != "DE" {
			t.Errorf("jose = %+v", u)
		}
		if u := users["wei@example.com"]; u.FirstName != "伟" || u.LastName != "王" {
			t.Errorf("wei = %+v", u)
		}
	})
}

// TestDirectoryServerDetected: without a flavor the root DSE tells 389
// Directory Server, whose defaults leave locked accounts out too;
// users.includeLocked keeps them.
func TestDirectoryServerDetected(t *testing.T) {
	t.Parallel()
	srv := dirsrvtest.Start(t)
	cfg := ipaConfig(t, srv)
	cfg.Flavor, cfg.Users.BaseDN, cfg.Groups.BaseDN = "", dirsrvtest.Users, dirsrvtest.Groups
	assertUsers(t, readIPA(t, cfg), wantIPA())

	cfg.Users.IncludeLocked = true
	want := wantIPA()
	want["lena@example.com"] = []string{"Platform", "Engineering"}
	want["lars@example.com"], want["liv@example.com"] = nil, nil
	assertUsers(t, readIPA(t, cfg), want)
}

// A search past the server's limits fails, naming the settings of 389
// Directory Server to change and the bind account's own: the size limit
// stops a page as large as itself, the look-through limit a read of more
// entries than itself, however paged.
func TestDirectoryServerLimits(t *testing.T) {
	t.Parallel()
	srv := dirsrvtest.Start(t)
	for _, tc := range []struct {
		name     string
		pageSize int
		want     []string
	}{
		{"size limit", 1000, []string{"stopped by the server after 500 entries", "Size Limit Exceeded", "nsslapd-sizelimit", "nsSizeLimit: -1", dirsrvtest.Limited, "pageSize (1000)"}},
		{"look-through limit", 200, []string{"stopped by the server after", "Admin Limit Exceeded", "nsslapd-lookthroughlimit", "nsLookThroughLimit: -1", dirsrvtest.Limited}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := ipaConfig(t, srv)
			cfg.BindDN, cfg.PageSize = dirsrvtest.Limited, tc.pageSize
			_, err := read(t, cfg, newMapper(t, ipaRules()), nil)
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("err = %v, want %q in it", err, w)
				}
			}
		})
	}
}

// What a FreeIPA administrator gets wrong, and what the errors say to do.
func TestFreeIPARefusals(t *testing.T) {
	t.Parallel()
	srv := dirsrvtest.Start(t)
	otherCA := slapdtest.NewTLS(t).CAFile // a CA that did not sign the server's certificate
	for _, tc := range []struct {
		name   string
		change func(*ldap.Config)
		rules  []mapping.Rule
		want   []string
	}{
		{"CA file of another authority", func(c *ldap.Config) { c.TLS.CAFile = otherCA },
			nil, []string{"not signed by the authority in tls.caFile", otherCA, "ssca.389ds.example.com", "orgsync test CA", "/etc/ipa/ca.crt"}},
		{"no CA file", func(c *ldap.Config) { c.TLS.CAFile = "" }, nil, []string{"set tls.caFile", "ssca.389ds.example.com"}},
		{"host name not in the certificate", func(c *ldap.Config) { c.TLS.ServerName = "" }, nil, []string{dirsrv.HostName, "tls.serverName"}},
		{"ldaps:// on the plain port", func(c *ldap.Config) { c.URL = "ldaps://" + strings.TrimPrefix(srv.URL, "ldap://") }, nil,
			[]string{"plain LDAP port", "ldap://", "startTLS"}},
		{"ldap:// on the TLS port", func(c *ldap.Config) {
			c.URL, c.ConnectTimeout = "ldap://"+strings.TrimPrefix(srv.LDAPSURL, "ldaps://"), time.Second
		}, nil, []string{"did not answer within 1s", "ldaps:// for its TLS port"}},
		{"groups the account may not read", func(c *ldap.Config) { c.BindDN = dirsrvtest.NoGroups }, ipaRules(),
			[]string{`"engineering"`, "as read by the bind account \"" + dirsrvtest.NoGroups + "\"", "sees no group there at all", "may read them"}},
		{"nsAccountLock the account may not read", func(c *ldap.Config) { c.BindDN = dirsrvtest.NoLock }, nil,
			[]string{"no entry matches", dirsrvtest.NoLock, "nsAccountLock included", "users.includeLocked"}},
		{"anonymous bind", func(c *ldap.Config) { c.BindDN, c.Password, c.Users.Filter = "", secret.Ref{}, "(uid=alice)" }, nil,
			[]string{"no entry matches", "an anonymous bind may read the entries there"}},
		{"anonymous bind with mapped groups", func(c *ldap.Config) { c.BindDN, c.Password = "", secret.Ref{} }, ipaRules(),
			[]string{"as read by an anonymous bind", "sees no group there at all"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := ipaConfig(t, srv)
			tc.change(&cfg)
			_, err := read(t, cfg, newMapper(t, tc.rules), nil)
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("err = %v, want %q in it", err, w)
				}
			}
		})
	}
}
