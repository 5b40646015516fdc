package ldap_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ldap3 "github.com/go-ldap/ldap/v3"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/orgsync/orgsync/internal/util/testenv"
	"github.com/orgsync/orgsync/reconcile"
	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/secret/secrettest"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/expr"
	"github.com/orgsync/orgsync/source/ldap"
	"github.com/orgsync/orgsync/source/ldap/internal/slapdtest"
	"github.com/orgsync/orgsync/source/mapping"
)

const (
	people  = "ou=people," + slapdtest.Suffix
	groupsB = "ou=groups," + slapdtest.Suffix
	nUsers  = 120 // more than the server's size limit of 50
)

func userDN(i int) string { return fmt.Sprintf("uid=user%03d,%s", i, people) }

// fixture is the test directory: nUsers good users, two bad ones, and
// groups of every kind, including a nesting cycle (eng <-> platform) and a
// group whose name is a filter injection.
func fixture() string {
	var b strings.Builder
	b.WriteString("dn: " + people + "\nobjectClass: organizationalUnit\nou: people\n\n")
	b.WriteString("dn: " + groupsB + "\nobjectClass: organizationalUnit\nou: groups\n\n")
	for i := 1; i <= nUsers; i++ {
		fmt.Fprintf(&b, "dn: %s\nobjectClass: inetOrgPerson\nuid: user%03d\ncn: User %d\ngivenName: Given%d\nsn: Family%d\nmail: user%03d@example.com\nmail: second%03d@example.com\n\n",
			userDN(i), i, i, i, i, i, i)
	}
	b.WriteString("dn: uid=bademail," + people + "\nobjectClass: inetOrgPerson\nuid: bademail\ncn: Bad\nsn: Bad\nmail: not-an-email\n\n")
	b.WriteString("dn: uid=nomail," + people + "\nobjectClass: inetOrgPerson\nuid: nomail\ncn: No\nsn: Mail\n\n")
	group := func(cn, class, attr string, members ...string) {
		fmt.Fprintf(&b, "dn: cn=%s,%s\nobjectClass: %s\ncn: %s\n", ldap3.EscapeDN(cn), groupsB, class, cn)
		if class == "posixGroup" {
			b.WriteString("gidNumber: 5000\n")
		}
		for _, m := range members {
			fmt.Fprintf(&b, "%s: %s\n", attr, m)
		}
		b.WriteString("\n")
	}
	group("eng", "groupOfNames", "member", userDN(1), userDN(2), "cn=platform,"+groupsB)
	group("platform", "groupOfNames", "member", userDN(3), "cn=eng,"+groupsB)
	group("sales", "groupOfUniqueNames", "uniqueMember", userDN(4)+"#'0101'B")
	group("ops", "posixGroup", "memberUid", "user005")
	group("hostile*)(|(uid=*", "groupOfNames", "member", userDN(6))
	group("proj-alpha-users", "groupOfNames", "member", userDN(7))
	group("unmapped", "groupOfNames", "member", userDN(8))
	return b.String()
}

func testRules() []mapping.Rule {
	return []mapping.Rule{
		{Directory: "eng", Targets: []string{"Engineering"}},
		{Directory: "cn=platform," + groupsB, Targets: []string{"Platform"}},
		{Directory: "sales", Targets: []string{"Sales", "CRM profile"}},
		{Directory: "cn=ops", Targets: []string{"Ops"}},
		{Directory: "hostile*)(|(uid=*", Targets: []string{"Hostile"}},
		{Pattern: "cn=proj-(.*)-users", Targets: []string{"$1 Users"}},
	}
}

func newMapper(t *testing.T, rules []mapping.Rule) *mapping.Mapper {
	t.Helper()
	m, err := mapping.New(rules)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// readerConfig binds as the plain reader account (the root DN is exempt
// from size limits).
func readerConfig(t *testing.T, url string) ldap.Config {
	t.Helper()
	return ldap.Config{
		Flavor: ldap.FlavorOpenLDAP, URL: url, BindDN: slapdtest.ReaderDN,
		Password: secrettest.File(t, slapdtest.ReaderPasswd),
		Users:    ldap.Users{BaseDN: people, DefaultCountry: "US"},
		Groups:   ldap.Groups{BaseDN: groupsB},
	}
}

func read(t *testing.T, cfg ldap.Config, m *mapping.Mapper, log *zap.Logger) (*source.Result, error) {
	t.Helper()
	src, err := cfg.Open("sources[0]", source.Options{Mapper: m, Log: log})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return src.Read(context.Background())
}

func byEmail(users reconcile.Users) map[string]reconcile.User {
	out := map[string]reconcile.User{}
	for _, u := range users.All() {
		out[u.Email] = u
	}
	return out
}

func TestOpenLDAPRead(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t, slapdtest.Options{LDIF: fixture(), SizeLimit: 50})
	cfg := readerConfig(t, srv.URL)
	cfg.PageSize = 20
	assertSizeLimitIsReal(t, srv.URL)

	res, err := read(t, cfg, newMapper(t, testRules()), nil)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if res.Users.Len() != nUsers {
		t.Fatalf("got %d users, want %d (paging past the size limit of 50)", res.Users.Len(), nUsers)
	}
	users := byEmail(res.Users)
	want := map[int][]string{
		1: {"Engineering", "Platform"}, 2: {"Engineering", "Platform"}, 3: {"Platform", "Engineering"},
		4: {"Sales", "CRM profile"}, 5: {"Ops"}, 6: {"Hostile"}, 7: {"alpha Users"}, 8: nil, 9: nil,
	}
	for i, groups := range want {
		u, ok := users[fmt.Sprintf("user%03d@example.com", i)]
		if !ok {
			t.Fatalf("user%03d missing (multi-valued mail must give its first value)", i)
		}
		if !sameSet(u.Groups, groups) {
			t.Errorf("user%03d groups = %q, want %q", i, u.Groups, groups)
		}
	}
	u := users["user001@example.com"]
	if u.FirstName != "Given1" || u.LastName != "Family1" || u.Country != "US" || u.Type != reconcile.FederatedID {
		t.Errorf("user001 = %+v", u)
	}
	// The country and type came from the defaults: a value of another
	// source's own will win over them (source.Merge).
	if len(res.Defaulted) != res.Users.Len() || res.DefaultedAt(0) != source.DefaultedType|source.DefaultedCountry {
		t.Errorf("Defaulted = %v for %d users, want both type and country defaulted", res.Defaulted, res.Users.Len())
	}
	assertProblems(t, res.Problems, map[string]string{
		"uid=bademail," + people: "email",
		"uid=nomail," + people:   "email",
	})
}

// assertSizeLimitIsReal checks that a search without paging stops at the
// server's size limit, so that the paged read above proves something.
func assertSizeLimitIsReal(t *testing.T, url string) {
	t.Helper()
	conn, err := ldap3.DialURL(url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Bind(slapdtest.ReaderDN, slapdtest.ReaderPasswd); err != nil {
		t.Fatal(err)
	}
	_, err = conn.Search(ldap3.NewSearchRequest(people, ldap3.ScopeWholeSubtree, 0, 0, 0, false, "(objectClass=inetOrgPerson)", []string{"mail"}, nil))
	if !ldap3.IsErrorWithCode(err, ldap3.LDAPResultSizeLimitExceeded) {
		t.Fatalf("unpaged search: err = %v, want sizeLimitExceeded", err)
	}
}

func assertProblems(t *testing.T, got []source.Problem, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %d problems %v, want %d", len(got), got, len(want))
	}
	for _, p := range got {
		if field, ok := want[p.Record]; !ok || p.Field != field || p.Source != "sources[0]" || p.Reason == "" {
			t.Errorf("unexpected problem %+v", p)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestOpenLDAPMissingMappedGroupFails(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t, slapdtest.Options{LDIF: fixture()})
	rules := append(testRules(), mapping.Rule{Directory: "renamed-team", Targets: []string{"Team"}})
	res, err := read(t, readerConfig(t, srv.URL), newMapper(t, rules), nil)
	if err == nil || !strings.Contains(err.Error(), `"renamed-team" not found`) {
		t.Fatalf("Read = %v users, err %v; want a missing group error", res, err)
	}
	if strings.Contains(err.Error(), "sources[0]") {
		t.Errorf("err = %v: the caller names the source, the error must not (it would be named twice)", err)
	}
}

// When the caller checks groups across sources, a missing exactly mapped
// group is reported in the result, with where it was looked for, and Read
// succeeds; the groups found are listed as the rules write them.
func TestOpenLDAPMissingGroupLeftToTheCaller(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t, slapdtest.Options{LDIF: fixture()})
	rules := append(testRules(), mapping.Rule{Directory: "contractors", Targets: []string{"Contractors"}})
	cfg := readerConfig(t, srv.URL)
	src, err := cfg.Open("sources[0]", source.Options{Mapper: newMapper(t, rules), CallerChecksGroups: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := src.Read(context.Background())
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if len(res.MissingGroups) != 1 || res.MissingGroups[0].Group != "contractors" || !strings.Contains(res.MissingGroups[0].Where, "with filter") {
		t.Errorf("MissingGroups = %+v, want contractors with where it was looked for", res.MissingGroups)
	}
	want := []string{"eng", "cn=platform," + groupsB, "sales", "cn=ops", "hostile*)(|(uid=*"}
	if !sameSet(res.FoundGroups, want) {
		t.Errorf("FoundGroups = %q, want %q", res.FoundGroups, want)
	}
	if res.Users.Len() == 0 {
		t.Error("no users read")
	}
}

func TestOpenLDAPBindAndOutage(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t, slapdtest.Options{LDIF: fixture()})
	m := newMapper(t, testRules())

	t.Run("wrong password", func(t *testing.T) {
		cfg := readerConfig(t, srv.URL)
		cfg.Password = secrettest.File(t, "wrong-password-value")
		_, err := read(t, cfg, m, nil)
		if err == nil || !strings.Contains(err.Error(), "invalid credentials") || strings.Contains(err.Error(), "wrong-password-value") {
			t.Fatalf("err = %v; want invalid credentials without the password", err)
		}
	})
	t.Run("anonymous, flavor detected", func(t *testing.T) {
		cfg := readerConfig(t, srv.URL)
		cfg.BindDN, cfg.Password, cfg.Flavor = "", secret.Ref{}, ""
		res, err := read(t, cfg, m, nil)
		if err != nil || res.Users.Len() != nUsers {
			t.Fatalf("anonymous read: %v, err %v", res, err)
		}
	})
	t.Run("first server down, second answers", func(t *testing.T) {
		cfg := readerConfig(t, closedURL(t))
		cfg.URLs = []string{srv.URL}
		res, err := read(t, cfg, m, nil)
		if err != nil || res.Users.Len() != nUsers {
			t.Fatalf("failover read: %v users, err %v", res, err)
		}
	})
	t.Run("no user entries", func(t *testing.T) {
		cfg := readerConfig(t, srv.URL)
		cfg.Users.BaseDN = groupsB
		if _, err := read(t, cfg, m, nil); err == nil || !strings.Contains(err.Error(), "no entry matches") {
			t.Fatalf("err = %v; want an error for an empty user search", err)
		}
	})
	t.Run("base DN does not exist", func(t *testing.T) {
		cfg := readerConfig(t, srv.URL)
		cfg.Users.BaseDN = "ou=nobody," + slapdtest.Suffix
		if _, err := read(t, cfg, m, nil); err == nil || !strings.Contains(err.Error(), "No Such Object") {
			t.Fatalf("err = %v; want noSuchObject", err)
		}
	})
	t.Run("server stopped", func(t *testing.T) {
		cfg := readerConfig(t, srv.URL)
		srv.Stop()
		_, err := read(t, cfg, m, nil)
		if err == nil || !strings.Contains(err.Error(), "the server at "+srv.URL+" refused the connection") {
			t.Fatalf("err = %v; want an outage error", err)
		}
	})
}

// closedURL returns an ldap:// URL of a loopback port nobody listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	srv := slapdtest.Start(t, slapdtest.Options{})
	srv.Stop()
	return srv.URL
}

func TestOpenLDAPTLS(t *testing.T) {
	t.Parallel()
	files := slapdtest.NewTLS(t)
	srv := slapdtest.Start(t, slapdtest.Options{LDIF: fixture(), CertFile: files.CertFile, KeyFile: files.KeyFile})
	m := newMapper(t, testRules())
	for _, tc := range []struct {
		name     string
		url      string
		startTLS bool
		caFile   string
		wantErr  string
	}{
		{"StartTLS with the CA", srv.URL, true, files.CAFile, ""},
		{"ldaps with the CA", srv.LDAPSURL, false, files.CAFile, ""},
		{"StartTLS without the CA", srv.URL, true, "", "certificate"},
		{"ldaps without the CA", srv.LDAPSURL, false, "", "certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := readerConfig(t, tc.url)
			cfg.StartTLS, cfg.TLS.CAFile = tc.startTLS, tc.caFile
			res, err := read(t, cfg, m, nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || res.Users.Len() != nUsers {
				t.Fatalf("read: %v, err %v", res, err)
			}
		})
	}
}

// A certificate that names the server only in its common name (as Samba's
// and many domain controllers' own do) is refused, and the error says
// what certificate the server needs.
func TestCertificateWithOnlyACommonName(t *testing.T) {
	t.Parallel()
	files, err := slapdtest.WriteTLS(t.TempDir(), slapdtest.ServerNames{CommonName: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	srv := slapdtest.Start(t, slapdtest.Options{LDIF: fixture(), CertFile: files.CertFile, KeyFile: files.KeyFile})
	cfg := readerConfig(t, srv.LDAPSURL)
	cfg.TLS.CAFile = files.CAFile
	_, err = read(t, cfg, newMapper(t, testRules()), nil)
	if err == nil || !strings.Contains(err.Error(), `only in its common name ("127.0.0.1"), with no subject alternative name`) ||
		!strings.Contains(err.Error(), "host name as a subject alternative name") {
		t.Fatalf("err = %v, want the missing subject alternative name explained", err)
	}
}

func TestDebugLogIsLdapsearchWithoutPassword(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t, slapdtest.Options{LDIF: fixture()})
	core, logs := observer.New(zapcore.DebugLevel)
	if _, err := read(t, readerConfig(t, srv.URL), newMapper(t, testRules()), zap.New(core)); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range logs.FilterMessage("ldap search").All() {
		lines = append(lines, e.ContextMap()["ldapsearch"].(string))
	}
	want := "ldapsearch -H " + srv.URL + " -x -D cn=reader,dc=example,dc=com -W -b ou=people,dc=example,dc=com -s sub -E pr=1000/noprompt"
	if len(lines) != 2 || !strings.HasPrefix(lines[1], want) {
		t.Fatalf("logged %q, want a groups search and a users search starting %q", lines, want)
	}
	for _, l := range lines {
		if strings.Contains(l, slapdtest.ReaderPasswd) {
			t.Fatalf("password in log line %q", l)
		}
	}
	// The logged command must work as printed (with -w for -W).
	runLoggedCommand(t, lines[1])
}

// runLoggedCommand runs a logged ldapsearch line through the shell when
// ldapsearch is installed, and checks that it finds the users.
func runLoggedCommand(t *testing.T, line string) {
	t.Helper()
	testenv.Program(t, "ldap-utils", "ldapsearch")
	pwFile := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pwFile, []byte(slapdtest.ReaderPasswd), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := shell(strings.Replace(line, " -W ", " -y "+pwFile+" ", 1) + " -LLL")
	if err != nil {
		t.Fatalf("logged command failed: %v\n%s", err, out)
	}
	if n := strings.Count(out, "\ndn: ") + boolInt(strings.HasPrefix(out, "dn: ")); n != nUsers+2 {
		t.Fatalf("logged command found %d entries, want %d", n, nUsers+2)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestOpenLDAPMemberOf reads membership from the users' memberOf values,
// which slapd's memberof overlay maintains for groups added over LDAP.
func TestOpenLDAPMemberOf(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t, slapdtest.Options{LDIF: usersOnly(), MemberOf: true})
	conn, err := ldap3.DialURL(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Bind(slapdtest.RootDN, slapdtest.RootPassword); err != nil {
		t.Fatal(err)
	}
	for _, g := range []struct {
		cn      string
		members []string
	}{{"eng", []string{userDN(1), userDN(2)}}, {"proj-beta-users", []string{userDN(2)}}} {
		add := ldap3.NewAddRequest("cn="+g.cn+","+groupsB, nil)
		add.Attribute("objectClass", []string{"groupOfNames"})
		add.Attribute("cn", []string{g.cn})
		add.Attribute("member", g.members)
		if err := conn.Add(add); err != nil {
			t.Fatal(err)
		}
	}
	cfg := readerConfig(t, srv.URL)
	// Groups are searched under an empty branch: only memberOf can tell.
	cfg.Groups = ldap.Groups{BaseDN: people, Membership: []string{ldap.MemberOf}}
	rules := []mapping.Rule{{Pattern: "cn=eng", Targets: []string{"Engineering"}}, {Pattern: "cn=proj-(.*)-users", Targets: []string{"$1 Users"}}}
	res, err := read(t, cfg, newMapper(t, rules), nil)
	if err != nil {
		t.Fatal(err)
	}
	users := byEmail(res.Users)
	for i, want := range map[int][]string{1: {"Engineering"}, 2: {"Engineering", "beta Users"}, 3: nil} {
		if got := users[fmt.Sprintf("user%03d@example.com", i)].Groups; !slices.Equal(got, want) {
			t.Errorf("user%03d groups = %q, want %q", i, got, want)
		}
	}

	// The expressions see the groups memberOf names, mapped or not.
	p, err := expr.Compile(expr.Config{Groups: `directoryGroups.map(g, "dir " + g)`})
	if err != nil {
		t.Fatal(err)
	}
	src, err := cfg.Open("sources[0]", source.Options{Mapper: newMapper(t, rules[:1]), Expressions: p})
	if err != nil {
		t.Fatal(err)
	}
	if res, err = src.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	users = byEmail(res.Users)
	if got, want := users["user002@example.com"].Groups, []string{"Engineering", "dir eng", "dir proj-beta-users"}; !sameSet(got, want) {
		t.Errorf("user002 groups with expressions = %q, want %q", got, want)
	}
}

// usersOnly is the fixture without its groups.
func usersOnly() string {
	f := fixture()
	return f[:strings.Index(f, "dn: cn=eng,")]
}

// With slapd's default for paged searches (their total is the hard size
// limit), a read past it fails, naming size.prtotal and a limits clause for
// the bind account, never the server's empty reason alone.
func TestOpenLDAPPagedSizeLimit(t *testing.T) {
	t.Parallel()
	srv := slapdtest.Start(t, slapdtest.Options{LDIF: fixture(), SizeLimit: 50, LimitPaged: true})
	cfg := readerConfig(t, srv.URL)
	cfg.PageSize = 20
	_, err := read(t, cfg, newMapper(t, testRules()), nil)
	for _, w := range []string{"stopped by the server after 50 entries", "Size Limit Exceeded", "size.prtotal", `limits dn.exact="<bindDN>"`, slapdtest.ReaderDN} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Fatalf("err = %v, want %q in it", err, w)
		}
	}
}
