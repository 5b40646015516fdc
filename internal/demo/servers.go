package demo

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/orgsync/orgsync/examples"
	"github.com/orgsync/orgsync/source/entra/entrafake"
	"github.com/orgsync/orgsync/source/google/googlefake"
	"github.com/orgsync/orgsync/source/ldap/dirsrv"
	"github.com/orgsync/orgsync/source/ldap/samba"
	"github.com/orgsync/orgsync/source/ldap/slapd"
	"github.com/orgsync/orgsync/source/okta/oktafake"
)

// startSamba serves the Active Directory example's directory
// (activedirectory/demo/directory.ldif under dir) from a throwaway Samba
// domain controller in a network namespace of its own, its ports
// forwarded from free ports of 127.0.0.1 (it needs root), points the
// example at them, and exports the service account's keytab beside the
// example's configuration.
func startSamba(out io.Writer, dir string) ([]string, func(), error) {
	example := filepath.Join(dir, "activedirectory", "demo")
	ldif, err := os.ReadFile(filepath.Join(example, "directory.ldif"))
	if err != nil {
		return nil, nil, err
	}
	sdir := filepath.Join(dir, "samba")
	if err := os.Mkdir(sdir, 0o700); err != nil {
		return nil, nil, err
	}
	fmt.Fprintln(out, "Starting a Samba domain controller for CORP.EXAMPLE.COM (the first time, provisioning the domain takes a minute).")
	srv, err := samba.Start(samba.Options{Dir: sdir, LDIF: string(ldif), CacheDir: filepath.Join(os.TempDir(), "orgsync-samba-cache"),
		Passwords: map[string]string{"svc-orgsync": examples.ActiveDirectoryServicePassword}})
	if err != nil {
		return nil, nil, fmt.Errorf("starting Samba for the example: %w", err)
	}
	if err := srv.ExportKeytab("svc-orgsync@"+samba.Realm, filepath.Join(example, "svc-orgsync.keytab")); err != nil {
		srv.Stop()
		return nil, nil, err
	}
	fmt.Fprintf(out, "Samba domain controller at %s (KDC %s) serving examples/activedirectory/demo/directory.ldif.\n", srv.URL, srv.KDC)
	return []string{"url: ldap://127.0.0.1\n", "url: " + srv.URL + "\n", "kdc: [127.0.0.1]", "kdc: [" + srv.KDC + "]"}, srv.Stop, nil
}

// startDirsrv serves the FreeIPA example's directory
// (freeipa/demo/directory.ldif under dir) from a throwaway 389 Directory
// Server with the memberOf plugin on, as FreeIPA has it, on free loopback
// ports (the instance is made once, a few tens of seconds, and cached),
// and points the example at it: its LDAPS URL, the instance's CA and the
// system account's password, in files beside the example.
func startDirsrv(out io.Writer, dir string) ([]string, func(), error) {
	example := filepath.Join(dir, "freeipa", "demo")
	ldif, err := os.ReadFile(filepath.Join(example, "directory.ldif"))
	if err != nil {
		return nil, nil, err
	}
	sdir := filepath.Join(dir, "dirsrv")
	if err := os.Mkdir(sdir, 0o700); err != nil {
		return nil, nil, err
	}
	fmt.Fprintln(out, "Starting 389 Directory Server with FreeIPA's tree (the first time, making the instance takes a minute).")
	srv, err := dirsrv.Start(dirsrv.Options{Dir: sdir, LDIF: string(ldif), MemberOf: true, CacheDir: dirsrv.CacheDir()})
	if err != nil {
		return nil, nil, fmt.Errorf("starting 389 Directory Server for the example: %w", err)
	}
	ca, err := os.ReadFile(srv.CAFile)
	if err == nil {
		err = os.WriteFile(filepath.Join(example, "ca.crt"), ca, 0o600)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(example, "ldap-password"), []byte(examples.FreeIPAReaderPassword), 0o600)
	}
	if err != nil {
		srv.Stop()
		return nil, nil, err
	}
	fmt.Fprintf(out, "389 Directory Server at %s (certificate for %s) serving examples/freeipa/demo/directory.ldif.\n", srv.LDAPSURL, dirsrv.HostName)
	return []string{"url: ldaps://127.0.0.1:10636", "url: " + srv.LDAPSURL}, srv.Stop, nil
}

// startSlapd serves the OpenLDAP example's directory
// (openldap/users.ldif under dir) from a throwaway slapd on a free
// loopback port, and points the example at it, with the reader account's
// password in a file.
func startSlapd(out io.Writer, dir string) ([]string, func(), error) {
	ldif, err := os.ReadFile(filepath.Join(dir, "openldap", "users.ldif"))
	if err != nil {
		return nil, nil, err
	}
	sdir := filepath.Join(dir, "slapd")
	if err := os.Mkdir(sdir, 0o700); err != nil {
		return nil, nil, err
	}
	srv, err := slapd.Start(slapd.Options{Dir: sdir, LDIF: string(ldif)})
	if err != nil {
		return nil, nil, fmt.Errorf("starting OpenLDAP for the example: %w", err)
	}
	pw := filepath.Join(dir, "openldap", "ldap-password")
	if err := os.WriteFile(pw, []byte(examples.OpenLDAPReaderPassword), 0o600); err != nil {
		srv.Stop()
		return nil, nil, err
	}
	fmt.Fprintf(out, "OpenLDAP slapd at %s serving examples/openldap/users.ldif.\n", srv.URL)
	return []string{"ldap://127.0.0.1:3890", srv.URL, "password: {env: LDAP_BIND_PASSWORD}", "password: {file: ldap-password}"}, srv.Stop, nil
}

// startEntra starts a fake Entra ID tenant for the entra example and
// points the example at it: its endpoints, its demo app and its demo
// secret (written beside the example).
func startEntra(out io.Writer, dir string) ([]string, func(), error) {
	if err := writeSecret(dir, "entra", entrafake.DemoSecret); err != nil {
		return nil, nil, err
	}
	s := entrafake.Start(entrafake.Demo(), entrafake.Options{})
	fmt.Fprintf(out, "Fake Entra ID tenant (Microsoft Graph) at %s.\n", s.URL)
	return []string{
		"tenantId: contoso.onmicrosoft.com", fmt.Sprintf("tenantId: %s\n      loginURL: %s\n      graphURL: %s", entrafake.DemoTenantID, s.URL, s.URL),
		"clientId: 00000000-0000-0000-0000-000000000000", "clientId: " + entrafake.DemoClientID,
		"clientSecret: {env: ENTRA_CLIENT_SECRET}", "clientSecret: {file: demo-secret}",
	}, s.Close, nil
}

// startOkta starts a fake Okta organization for the okta example and
// points the example at it, with its demo API token.
func startOkta(out io.Writer, dir string) ([]string, func(), error) {
	if err := writeSecret(dir, "okta", oktafake.DemoToken); err != nil {
		return nil, nil, err
	}
	s := oktafake.Start(oktafake.Demo(), oktafake.Options{})
	fmt.Fprintf(out, "Fake Okta organization at %s.\n", s.URL)
	return []string{
		"orgURL: https://example.okta.com", "orgURL: " + s.URL,
		"apiToken: {env: OKTA_API_TOKEN}", "apiToken: {file: demo-secret}",
	}, s.Close, nil
}

// startGoogle starts a fake Google Workspace domain for the google
// example and points the example at it: a service account's key file (of
// a key made for the run, delegated the read-only scopes) and the
// Directory API's address.
func startGoogle(out io.Writer, dir string) ([]string, func(), error) {
	key, err := googlefake.NewKey("orgsync-demo@orgsync-fake.iam.gserviceaccount.com", "100000000000000000042")
	if err != nil {
		return nil, nil, err
	}
	s := googlefake.Start(googlefake.Demo(key.Account), googlefake.Options{})
	if err := writeSecret(dir, "google", string(key.File(s.TokenURL()))); err != nil {
		s.Close()
		return nil, nil, err
	}
	fmt.Fprintf(out, "Fake Google Workspace domain (Admin SDK Directory API) at %s.\n", s.URL)
	return []string{
		"credentials: {file: /etc/orgsync/secrets/google-service-account.json}", "credentials: {file: demo-secret}",
		"subject: admin@example.com", fmt.Sprintf("subject: %s\n      apiURL: %s", googlefake.DemoSubject, s.URL),
	}, s.Close, nil
}

// writeSecret writes a fake's demo secret into the example's
// directory, as demo-secret.
func writeSecret(dir, example, secret string) error {
	return os.WriteFile(filepath.Join(dir, example, "demo-secret"), []byte(secret), 0o600)
}
