package demo

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/orgsync/orgsync/examples"
	"github.com/orgsync/orgsync/source/entra/entrafake"
	"github.com/orgsync/orgsync/source/google/googlefake"
	"github.com/orgsync/orgsync/source/ldap/samba"
	"github.com/orgsync/orgsync/source/ldap/slapd"
	"github.com/orgsync/orgsync/source/okta/oktafake"
)

// startSamba serves the Active Directory example's directory
// (activedirectory/demo/directory.ldif under dir) from a throwaway Samba
// domain controller on 127.0.0.1 (it needs root), and exports the service
// account's keytab beside the example's configuration.
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
	return nil, srv.Stop, nil
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
// points the example at it: its endpoints, its demo app, and a sign-in
// without a secret: workload identity federation, with a federated token
// file (as AKS mounts it) of a demo cluster's issuer, which the demo
// app's federated credential trusts.
func startEntra(out io.Writer, dir string) ([]string, func(), error) {
	iss, err := entrafake.NewIssuer(entrafake.DemoIssuer)
	if err != nil {
		return nil, nil, err
	}
	tenant := entrafake.Demo()
	tenant.Trust(iss)
	tok := iss.Token(entrafake.DemoServiceAccount, entrafake.DefaultFederatedAudience, 24*time.Hour)
	if err := os.WriteFile(filepath.Join(dir, "entra", "demo-federated-token"), []byte(tok), 0o600); err != nil {
		return nil, nil, err
	}
	s := entrafake.Start(tenant, entrafake.Options{})
	fmt.Fprintf(out, "Fake Entra ID tenant (Microsoft Graph) at %s.\n", s.URL)
	fmt.Fprintln(out, "Signing in without a secret: workload identity federation, with a federated token file as AKS mounts it (auth: workloadIdentity).")
	return []string{
		"tenantId: contoso.onmicrosoft.com", fmt.Sprintf("tenantId: %s\n      loginURL: %s\n      graphURL: %s", entrafake.DemoTenantID, s.URL, s.URL),
		"clientId: 00000000-0000-0000-0000-000000000000", "clientId: " + entrafake.DemoClientID,
		"clientSecret: {env: ENTRA_CLIENT_SECRET}", "auth: workloadIdentity\n      federatedTokenFile: demo-federated-token",
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
// example and points the example at it, signing in without a key file:
// a demo cluster's token (a file) exchanged through workload identity
// federation, the service account delegated the read-only scopes
// impersonated, and the delegation signed by IAM Credentials (auth:
// signJwt).
func startGoogle(out io.Writer, dir string) ([]string, func(), error) {
	const account = "orgsync-demo@orgsync-fake.iam.gserviceaccount.com"
	key, err := googlefake.NewKey(account, "100000000000000000042")
	if err != nil {
		return nil, nil, err
	}
	iss, err := googlefake.NewIssuer(googlefake.DemoIssuer)
	if err != nil {
		return nil, nil, err
	}
	dom := googlefake.Demo(key.Account)
	p := dom.Federate(googlefake.DemoProvider, iss)
	dom.AllowTokenCreator(account, p.Principal(googlefake.DemoWorkload))
	dom.AllowTokenCreator(account, "serviceAccount:"+account)
	s := googlefake.Start(dom, googlefake.Options{})
	tokenFile := filepath.Join(dir, "google", "demo-cluster-token")
	err = os.WriteFile(tokenFile, []byte(iss.Token(googlefake.DemoWorkload, p.TokenAudience(), 24*time.Hour)), 0o600)
	if err == nil {
		err = writeSecret(dir, "google", string(s.ExternalAccount(p, map[string]any{"file": tokenFile}, account)))
	}
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	fmt.Fprintf(out, "Fake Google Workspace domain (Admin SDK Directory API) at %s.\n", s.URL)
	fmt.Fprintln(out, "Signing in without a key file: workload identity federation, and the delegation signed by IAM Credentials (auth: signJwt).")
	return []string{
		"# credentials: {file: /etc/orgsync/google-external-account.json}", "credentials: {file: demo-secret}",
		"subject: admin@example.com", fmt.Sprintf("subject: %s\n      apiURL: %s\n      tokenURL: %s\n      iamURL: %s",
			googlefake.DemoSubject, s.URL, s.TokenURL(), s.URL),
	}, s.Close, nil
}

// writeSecret writes a fake's demo secret into the example's
// directory, as demo-secret.
func writeSecret(dir, example, secret string) error {
	return os.WriteFile(filepath.Join(dir, example, "demo-secret"), []byte(secret), 0o600)
}
