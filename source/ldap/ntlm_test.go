package ldap_test

import (
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"
	"unicode/utf16"

	"golang.org/x/crypto/md4" //nolint:staticcheck // the NT hash is MD4

	"github.com/orgsync/orgsync/secret"
	"github.com/orgsync/orgsync/secret/secrettest"
	"github.com/orgsync/orgsync/source/ldap"
	"github.com/orgsync/orgsync/source/ldap/internal/sambatest"
)

// ntHash is the NT hash of password, as tools print it.
func ntHash(password string) string {
	var b []byte
	for _, u := range utf16.Encode([]rune(password)) {
		b = binary.LittleEndian.AppendUint16(b, u)
	}
	h := md4.New()
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// ntlmConfig binds with NTLM over plain LDAP, where the bind signs every
// message, as the domain controller requires.
func ntlmConfig(t *testing.T, srv *sambatest.Server) ldap.Config {
	cfg := onlyPeople(sambaConfig(t, srv))
	cfg.URL, cfg.TLS, cfg.Bind, cfg.BindDN = srv.URL, ldap.TLS{}, ldap.BindNTLM, `CORP\`+sambatest.ServiceName
	return cfg
}

// TestNTLMBindOnSamba reads the domain after an NTLM bind with the
// password or its NT hash, as DOMAIN\user or a user principal name, with
// the messages signed; a whole read checks the signing over many pages.
func TestNTLMBindOnSamba(t *testing.T) {
	t.Parallel()
	srv := sambatest.Domain(t)
	for _, tc := range []struct {
		name   string
		change func(*ldap.Config)
	}{
		{"password, DOMAIN\\user", func(*ldap.Config) {}},
		{"password, user principal name", func(c *ldap.Config) { c.BindDN = sambatest.ServiceUPN }},
		{"NT hash", func(c *ldap.Config) {
			c.Password, c.NTHash = secret.Ref{}, secrettest.File(t, ntHash(sambatest.ServicePass))
		}},
		{"the whole domain", func(c *ldap.Config) { c.Users.Scope = "" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := ntlmConfig(t, srv)
			tc.change(&cfg)
			want := wantPeople()
			if cfg.Users.Scope == "" {
				want = wantSamba()
			}
			assertUsers(t, groupsByEmail(t, cfg), want)
		})
	}
}

func TestNTLMErrorsOnSamba(t *testing.T) {
	t.Parallel()
	srv := sambatest.Domain(t)
	wrongPassword := secrettest.File(t, "not-it")
	for _, tc := range []struct {
		name   string
		change func(*ldap.Config)
		want   []string
	}{
		{"wrong password", func(c *ldap.Config) { c.Password = wrongPassword }, []string{"invalid credentials", wrongPassword.String()}},
		{"over LDAPS", func(c *ldap.Config) { c.URL, c.TLS = srv.LDAPSURL, ldap.TLS{CAFile: srv.TLS.CAFile} }, []string{"bind over ldap:// without startTLS"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := ntlmConfig(t, srv)
			tc.change(&cfg)
			_, err := read(t, cfg, newMapper(t, sambaRules()), nil)
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("err = %v, want %q in it", err, w)
				}
			}
		})
	}
}
