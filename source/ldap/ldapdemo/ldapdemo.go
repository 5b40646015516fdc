// Package ldapdemo starts the throwaway directory servers that orgsync
// demo reads for the ldap kind's examples: OpenLDAP's slapd, a Samba
// Active Directory domain controller and 389 Directory Server. The demo
// registers them (internal/demo); the product's packages never import
// this one.
package ldapdemo

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/orgsync/orgsync/source/ldap"
	"github.com/orgsync/orgsync/source/ldap/dirsrv"
	"github.com/orgsync/orgsync/source/ldap/samba"
	"github.com/orgsync/orgsync/source/ldap/slapd"
)

// StartSamba serves the Active Directory example's directory
// (activedirectory/demo/directory.ldif under dir) from a throwaway Samba
// domain controller in a network namespace of its own, its ports
// forwarded from free ports of 127.0.0.1 (it needs root), points the
// example at them, and exports the service account's keytab beside the
// example's configuration.
func StartSamba(out io.Writer, dir string) ([]string, func(), error) {
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
		Passwords: map[string]string{"svc-orgsync": ldap.ActiveDirectoryServicePassword}})
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

// StartDirsrv serves the FreeIPA example's directory
// (freeipa/demo/directory.ldif under dir) from a throwaway 389 Directory
// Server with the memberOf plugin on, as FreeIPA has it, on free loopback
// ports (the instance is made once, a few tens of seconds, and cached),
// and points the example at it: its LDAPS URL, the instance's CA and the
// system account's password, in files beside the example.
func StartDirsrv(out io.Writer, dir string) ([]string, func(), error) {
	example := filepath.Join(dir, "freeipa", "demo")
	ldif, err := os.ReadFile(filepath.Join(example, "directory.ldif"))
	if err != nil {
		return nil, nil, err
	}
	sdir := filepath.Join(dir, "dirsrv")
	if err := os.Mkdir(sdir, 0o700); err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(out, "Starting 389 Directory Server with FreeIPA's tree (the instance is made once and kept in %s: the first start takes longer).\n", dirsrv.CacheDir())
	start := time.Now()
	srv, err := dirsrv.Start(dirsrv.Options{Dir: sdir, LDIF: string(ldif), MemberOf: true, CacheDir: dirsrv.CacheDir()})
	if err != nil {
		return nil, nil, fmt.Errorf("starting 389 Directory Server for the example: %w", err)
	}
	ca, err := os.ReadFile(srv.CAFile)
	if err == nil {
		err = os.WriteFile(filepath.Join(example, "ca.crt"), ca, 0o600)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(example, "ldap-password"), []byte(ldap.FreeIPAReaderPassword), 0o600)
	}
	if err != nil {
		srv.Stop()
		return nil, nil, err
	}
	fmt.Fprintf(out, "389 Directory Server at %s (certificate for %s) serving examples/freeipa/demo/directory.ldif, started in %s.\n",
		srv.LDAPSURL, dirsrv.HostName, time.Since(start).Round(100*time.Millisecond))
	return []string{"url: ldaps://127.0.0.1:10636", "url: " + srv.LDAPSURL}, srv.Stop, nil
}

// StartSlapd serves the OpenLDAP example's directory
// (openldap/users.ldif under dir) from a throwaway slapd on a free
// loopback port, and points the example at it, with the reader account's
// password in a file.
func StartSlapd(out io.Writer, dir string) ([]string, func(), error) {
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
	if err := os.WriteFile(pw, []byte(ldap.OpenLDAPReaderPassword), 0o600); err != nil {
		srv.Stop()
		return nil, nil, err
	}
	fmt.Fprintf(out, "OpenLDAP slapd at %s serving examples/openldap/users.ldif.\n", srv.URL)
	return []string{"ldap://127.0.0.1:3890", srv.URL, "password: {env: LDAP_BIND_PASSWORD}", "password: {file: ldap-password}"}, srv.Stop, nil
}
