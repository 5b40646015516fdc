package ldap_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/orgsync/orgsync/internal/util/testenv"
	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/diag"
	"github.com/orgsync/orgsync/source/ldap"
)

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	valid := func() ldap.Config {
		return ldap.Config{URL: "ldaps://ldap.example.org", BindDN: "cn=svc,dc=example,dc=com",
			Password: secret.Ref{Env: "LDAP_PW"}, Users: ldap.Users{BaseDN: "dc=example,dc=com"}}
	}
	for _, tc := range []struct {
		name   string
		change func(*ldap.Config)
		want   []string // fields with a problem
	}{
		{"valid", func(*ldap.Config) {}, nil},
		{"anonymous", func(c *ldap.Config) { c.BindDN, c.Password = "", secret.Ref{} }, nil},
		{"nothing", func(c *ldap.Config) { *c = ldap.Config{} }, []string{"url", "users.baseDN"}},
		{"bad urls", func(c *ldap.Config) { c.URLs = []string{"http://x", "ldap://"} }, []string{"urls[0]", "urls[1]"}},
		{"init's placeholders", func(c *ldap.Config) {
			c.URL, c.URLs = "ldaps://ldap.example.com:636", []string{"ldaps://dc1.corp.example.org", "ldaps://DC2.corp.example.com"}
		}, []string{"url", "urls[1]"}},
		{"startTLS on ldaps", func(c *ldap.Config) { c.StartTLS = true }, []string{"url"}},
		{"password without bindDN", func(c *ldap.Config) { c.BindDN = "" }, []string{"bindDN"}},
		{"bindDN without password", func(c *ldap.Config) { c.Password = secret.Ref{} }, []string{"password"}},
		{"user principal name", func(c *ldap.Config) { c.BindDN = "svc-orgsync@corp.example.com" }, nil},
		{"down-level logon name", func(c *ldap.Config) { c.BindDN = `CORP\svc-orgsync` }, nil},
		{"principal name for OpenLDAP", func(c *ldap.Config) { c.Flavor, c.BindDN = "openldap", "svc@example.com" }, []string{"bindDN"}},
		{"kerberos with a keytab", func(c *ldap.Config) {
			c.Bind, c.BindDN, c.Password, c.Kerberos = "kerberos", "svc@CORP.EXAMPLE.COM", secret.Ref{}, ldap.Kerberos{Keytab: "config_test.go", KDC: []string{"dc1"}}
		}, nil},
		{"kerberos with a DN and two key sources", func(c *ldap.Config) {
			c.Bind, c.Kerberos = "kerberos", ldap.Kerberos{Keytab: "config_test.go", SPN: "dc1"}
		}, []string{"kerberos", "bindDN", "kerberos.spn"}},
		{"kerberos settings without bind kerberos", func(c *ldap.Config) { c.Kerberos.Realm = "CORP" }, []string{"bind"}},
		{"kerberos through SSPI over ldaps", func(c *ldap.Config) {
			c.Bind, c.BindDN, c.Password, c.Kerberos = "kerberos", "", secret.Ref{}, ldap.Kerberos{SSPI: true, SPN: "ldap/dc1.corp.example.com"}
		}, nil},
		{"kerberos through SSPI with StartTLS", func(c *ldap.Config) {
			c.URL, c.StartTLS, c.Bind, c.BindDN, c.Password, c.Kerberos = "ldap://dc1", true, "kerberos", "", secret.Ref{}, ldap.Kerberos{SSPI: true}
		}, nil},
		{"kerberos through SSPI with keys, a realm, no TLS", func(c *ldap.Config) {
			c.URL, c.Bind, c.Kerberos = "ldap://dc1", "kerberos", ldap.Kerberos{SSPI: true, Keytab: "config_test.go", Realm: "CORP", SPN: "dc1"}
		}, []string{"kerberos.sspi", "kerberos.sspi", "kerberos.sspi", "kerberos.spn"}},
		{"kerberos through SSPI without bind kerberos", func(c *ldap.Config) { c.Kerberos.SSPI = true }, []string{"bind"}},
		{"unknown bind", func(c *ldap.Config) { c.Bind = "digest" }, []string{"bind"}},
		{"FreeIPA without base DNs", func(c *ldap.Config) { c.Flavor, c.Users.BaseDN = "freeipa", "" }, nil},
		{"389 DS without users.baseDN", func(c *ldap.Config) { c.Flavor, c.Users.BaseDN = "389ds", "" }, []string{"users.baseDN"}},
		{"principal name for 389 DS", func(c *ldap.Config) { c.Flavor, c.BindDN = "389ds", "svc@example.com" }, []string{"bindDN"}},
		{"includeLocked with FreeIPA or a detected flavor", func(c *ldap.Config) { c.Users.IncludeLocked = true }, nil},
		{"includeLocked with OpenLDAP", func(c *ldap.Config) { c.Flavor, c.Users.IncludeLocked = "openldap", true }, []string{"users.includeLocked"}},
		{"bad flavor and limits", func(c *ldap.Config) { c.Flavor, c.PageSize, c.SearchTimeout = "novell", -1, -1 }, []string{"flavor", "searchTimeout", "pageSize"}},
		{"missing CA file", func(c *ldap.Config) { c.TLS.CAFile = "/nonexistent/ca.pem" }, []string{"tls.caFile"}},
		{"bad users", func(c *ldap.Config) {
			c.Users = ldap.Users{BaseDN: "not a dn", Scope: "deep", Filter: "(uid=", Email: "{mail", Type: "robot", DefaultCountry: "Germany"}
		}, []string{"users.baseDN", "users.scope", "users.filter", "users.email", "users.type", "users.defaultCountry"}},
		{"bad groups", func(c *ldap.Config) {
			c.Groups = ldap.Groups{Filter: "objectClass=group)", Membership: []string{"member", "owner"}, NameAttribute: "c n"}
		}, []string{"groups.filter", "groups.nameAttribute", "groups.membership[1]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := valid()
			tc.change(&c)
			var got []string
			for _, e := range c.Validate() {
				got = append(got, e.Field)
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("problems in %v, want %v: %v", got, tc.want, c.Validate())
			}
		})
	}
}

// A malformed bind name is refused with the forms that are accepted.
func TestMalformedBindNameListsTheAcceptedForms(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"svc orgsync", "cn=svc,,dc=x", `CORP\`, "@corp.example.com", `a\b\c`, "svc@"} {
		c := ldap.Config{URL: "ldaps://dc1", BindDN: name, Password: secret.Ref{Env: "PW"}, Users: ldap.Users{BaseDN: "dc=x"}}
		errs := c.Validate()
		if len(errs) != 1 || errs[0].Field != "bindDN" {
			t.Errorf("%q: problems %v, want one in bindDN", name, errs)
			continue
		}
		for _, form := range []string{"a DN", "a user principal name", `DOMAIN\user`} {
			if !strings.Contains(errs[0].Reason, form) {
				t.Errorf("%q: %q does not name %s", name, errs[0].Reason, form)
			}
		}
	}
}

func TestOpenReportsFieldErrors(t *testing.T) {
	t.Parallel()
	var cfg ldap.Config
	_, err := cfg.Open("sources[2]", source.Options{})
	var fe diag.FieldErrors
	if !errors.As(err, &fe) || len(fe) != 2 {
		t.Fatalf("Open = %v, want the two FieldErrors", err)
	}
}

func TestReadCanceled(t *testing.T) {
	t.Parallel()
	cfg := ldap.Config{URL: "ldap://127.0.0.1:1", Users: ldap.Users{BaseDN: "dc=x"}}
	src, err := cfg.Open("s", source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := src.Read(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read = %v, want context.Canceled", err)
	}
}

func TestConfigYAML(t *testing.T) {
	t.Parallel()
	const doc = `
flavor: activedirectory
urls: [ldaps://dc1.corp.example, ldaps://dc2.corp.example]
tls: {caFile: /etc/ssl/corp-ca.pem, serverName: corp.example}
bindDN: cn=svc,dc=corp,dc=example
password: {env: LDAP_PASSWORD}
connectTimeout: 5s
searchTimeout: 1m
pageSize: 500
users: {baseDN: "dc=corp,dc=example", username: "{sAMAccountName}", defaultCountry: DE}
groups: {membership: [member, primaryGroup], nested: false}
`
	var c ldap.Config
	dec := yaml.NewDecoder(strings.NewReader(doc))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		t.Fatal(err)
	}
	if c.ConnectTimeout != 5*time.Second || c.SearchTimeout != time.Minute || len(c.URLs) != 2 || c.Password.Env != "LDAP_PASSWORD" ||
		c.TLS.ServerName != "corp.example" || c.Users.Username != "{sAMAccountName}" || c.Groups.Nested == nil || *c.Groups.Nested {
		t.Fatalf("decoded %+v", c)
	}
}

// TestTimeouts uses a server that accepts connections and never answers:
// the bind gives up after connectTimeout and says so in one line, with
// the URL's key and the timeout's, and nothing of the network library.
func TestTimeouts(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	url := "ldap://" + l.Addr().String()
	start := time.Now()
	err = readError(t, ldap.Config{URL: "ldap://127.0.0.1:1", URLs: []string{url}, ConnectTimeout: 200 * time.Millisecond, Users: ldap.Users{BaseDN: "dc=x"}})
	if time.Since(start) > 5*time.Second {
		t.Fatalf("Read took %v; want a timeout after about 200ms", time.Since(start))
	}
	wantMessage(t, err, "the server at "+url+" accepted the connection but did not answer within 200ms", "check sources[0].ldap.urls[0]", "raise sources[0].ldap.connectTimeout")

	// over TLS the handshake is what gets no answer
	tlsURL := "ldaps://" + l.Addr().String()
	err = readError(t, ldap.Config{URL: tlsURL, ConnectTimeout: 200 * time.Millisecond, Users: ldap.Users{BaseDN: "dc=x"}})
	wantMessage(t, err, "the server at "+tlsURL+" accepted the connection but did not answer within 200ms", "check sources[0].ldap.url (", "raise sources[0].ldap.connectTimeout")
}

// TestRefusedAndUnknownHost: a port nothing listens on and a host name
// that does not resolve are each said so, with the key to check.
func TestRefusedAndUnknownHost(t *testing.T) {
	t.Parallel()
	refused := "ldap://" + testenv.RefusedAddr(t)
	err := readError(t, ldap.Config{URL: refused, Users: ldap.Users{BaseDN: "dc=x"}})
	wantMessage(t, err, "the server at "+refused+" refused the connection", "check sources[0].ldap.url")

	err = readError(t, ldap.Config{URL: "ldap://nohost.invalid", ConnectTimeout: 5 * time.Second, Users: ldap.Users{BaseDN: "dc=x"}})
	wantMessage(t, err, "the host name nohost.invalid in ldap://nohost.invalid does not resolve", "check sources[0].ldap.url")
}

// readError opens cfg as the first source of a file and returns Read's
// error.
func readError(t *testing.T, cfg ldap.Config) error {
	t.Helper()
	src, err := cfg.Open("s", source.Options{Key: "sources[0].ldap"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.Read(context.Background())
	if err == nil {
		t.Fatal("Read succeeded")
	}
	return err
}

// wantMessage checks that err is one line holding each of want and none
// of the network library's words.
func wantMessage(t *testing.T, err error, want ...string) {
	t.Helper()
	msg := err.Error()
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q lacks %q", msg, w)
		}
	}
	for _, internal := range []string{"\n", "LDAP Result Code", "i/o timeout", "dial tcp", "lookup ", "read tcp", "connect:"} {
		if strings.Contains(msg, internal) {
			t.Errorf("error %q holds %q", msg, internal)
		}
	}
}
