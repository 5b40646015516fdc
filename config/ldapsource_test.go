package config

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/internal/util/testenv"
	"github.com/orgsync/orgsync/source"
)

// ldapConfig is a configuration with one LDAP source at url.
func ldapConfig(url string) string {
	return `target:
  orgId: 12AB@VendorOrg
  baseURL: https://um.example.org
  auth: {clientId: cid, clientSecret: {env: S}, technicalAccountId: t@techacct.example.org, privateKey: {env: K}}
sources:
  - ldap:
      url: ` + url + `
      users: {baseDN: "ou=people,dc=example,dc=com"}
`
}

// The server address orgsync init writes is refused on its line.
func TestLDAPPlaceholderRefused(t *testing.T) {
	// Not parallel: the configuration's secrets are environment variables of the process (t.Setenv).
	t.Setenv("S", "set")
	t.Setenv("K", "set")
	cerr := loadProblems(t, map[string]string{"c.yaml": ldapConfig("ldaps://ldap.example.com:636")})
	wantProblems(t, cerr, []string{`sources[0].ldap.url (line 7): "ldaps://ldap.example.com:636" is the placeholder orgsync init writes`})
}

// An LDAP source opened from the file names its keys with their path in
// the errors of a server it cannot use.
func TestLDAPSourceNamesKeyPath(t *testing.T) {
	// Not parallel: the configuration's secrets are environment variables of the process (t.Setenv).
	t.Setenv("S", "set")
	t.Setenv("K", "set")
	url := "ldap://" + testenv.RefusedAddr(t)
	dir := write(t, map[string]string{"c.yaml": ldapConfig(url)}, 0o600)
	cfg, err := Load(filepath.Join(dir, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := cfg.OpenSources(source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = srcs[0].Read(context.Background())
	if err == nil || !strings.Contains(err.Error(), "refused the connection") || !strings.Contains(err.Error(), "check sources[0].ldap.url,") {
		t.Fatalf("Read = %v; want the refusal with the key sources[0].ldap.url", err)
	}
}
