package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orgsync/orgsync/config"
	"github.com/orgsync/orgsync/internal/demo/starter"
	"github.com/orgsync/orgsync/source/all"
	"github.com/orgsync/orgsync/source/ldap"
)

// TestInitWritesStarterConfigs: each starter configuration (one for each
// variant of the registry's kinds) loads, its only problems the
// placeholders and the private key file the administrator has to supply;
// with them in place the configuration is valid and has the chosen kind
// of source.
func TestInitWritesStarterConfigs(t *testing.T) {
	t.Parallel()
	variants := map[string]string{} // the kind of each variant
	for _, k := range all.Kinds() {
		for _, v := range k.Variants {
			variants[v.Name] = k.Key
		}
	}
	for kind, want := range variants {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "orgsync.yaml")
			code, out, errOut := runInProcess("init", "--source", kind, "--output", path)
			if code != exitOK || !strings.Contains(out, "wrote "+path) {
				t.Fatalf("init: exit %d\n%s\n%s", code, out, errOut)
			}
			_, err := config.Load(path)
			var cerr *config.Error
			if !errors.As(err, &cerr) {
				t.Fatalf("want the starter's problems, got %v", err)
			}
			// The 4 placeholders, the missing private key, and with them the
			// unset secret variables: every problem at once.
			paths := map[string]bool{}
			for _, p := range cerr.Problems {
				paths[p.Path] = true
			}
			for _, want := range []string{"target.orgId", "target.baseURL", "target.auth.clientId", "target.auth.technicalAccountId",
				"target.auth.privateKey.file", "target.auth.clientSecret"} {
				if !paths[want] {
					t.Errorf("%s is not reported: %v", want, err)
				}
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range map[string][]string{"ldap": {"sources[0].ldap.url"}, "activedirectory": {"sources[0].ldap.urls[0]", "sources[0].ldap.urls[1]"}, "freeipa": {"sources[0].ldap.url"}}[kind] {
				if !paths[want] {
					t.Errorf("the placeholder server %s is not reported: %v", want, err)
				}
			}
			replace := []string{config.PlaceholderOrgID, "12AB@VendorOrg", config.PlaceholderHost, "um.example.org",
				config.PlaceholderTechnicalAccount, "12AB@techacct.example.org", config.PlaceholderClientID, "c1ad"}
			for _, host := range ldap.PlaceholderHosts {
				replace = append(replace, host, strings.Replace(host, ".example.com", ".example.org", 1))
			}
			filled := strings.NewReplacer(replace...).Replace(string(data))
			if err := os.WriteFile(path, []byte(filled), 0o600); err != nil {
				t.Fatal(err)
			}
			key := filepath.Join(dir, "secrets", "private-key.pem")
			if err := os.MkdirAll(filepath.Dir(key), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(key, []byte("filled in by the administrator"), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, err := config.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(cfg.Sources) != 1 || cfg.Sources[0].Kind() != want || len(cfg.Mapping) == 0 {
				t.Errorf("sources %+v, %d mapping rules; want one %s source and rules", cfg.Sources, len(cfg.Mapping), want)
			}
			if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
				t.Errorf("mode %04o, want 0600", st.Mode().Perm())
			}
		})
	}
}

// TestInitRefusesToOverwrite: an existing file is kept unless --force.
func TestInitRefusesToOverwrite(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "orgsync.yaml")
	if err := os.WriteFile(path, []byte("mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runInProcess("init", "--output", path, "--source", "ldap")
	if data, _ := os.ReadFile(path); code != exitError || string(data) != "mine\n" || !strings.Contains(errOut, "add --force") {
		t.Fatalf("init over an existing file: exit %d, file %q\n%s", code, data, errOut)
	}
	code, _, errOut = runInProcess("init", "--output", path, "--source", "ldap", "--force")
	if data, _ := os.ReadFile(path); code != exitOK || !strings.Contains(string(data), "flavor: openldap") {
		t.Fatalf("init --force: exit %d\n%s", code, errOut)
	}
	code, out, _ := runInProcess("init", "--output", "-", "--source", "yaml")
	if code != exitOK || !strings.Contains(out, "- yaml:") {
		t.Errorf("init --output -: exit %d\n%s", code, out)
	}
	code, _, errOut = runInProcess("init", "--source", "oracle", "--output", "-")
	if code != exitError || !strings.Contains(errOut, `--source "oracle": use one of `+starter.Kinds()) {
		t.Errorf("unknown source: exit %d\n%s", code, errOut)
	}
}
