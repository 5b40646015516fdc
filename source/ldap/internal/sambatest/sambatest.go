// Package sambatest gives the tests of a package one real Active Directory
// domain controller (package samba), shared by them and stopped by Main: a
// domain takes seconds to start. Each test binary's runs in its own
// network namespace, so that packages are tested side by side. The domain
// holds Fixture, and LDAPS and StartTLS present a certificate of a test CA
// with the names clients check.
//
// When Samba's domain controller is not installed, or the tests do not run
// as root, Domain skips the test, except in CI (CI=true), where it fails
// it: the Active Directory tests must run there.
package sambatest

import (
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"

	ldap3 "github.com/go-ldap/ldap/v3"

	"github.com/orgsync/orgsync/internal/util/testenv"
	"github.com/orgsync/orgsync/source/ldap/internal/slapdtest"
	"github.com/orgsync/orgsync/source/ldap/samba"
)

// Server is the running domain controller and the files of its test CA.
type Server struct {
	*samba.Server
	TLS slapdtest.TLSFiles
	// Dir lives as long as the server; tests may write files there.
	Dir string
}

// shared is the one domain controller of a test binary.
var shared struct {
	sync.Mutex
	srv    *Server
	ldif   string
	failed error
}

// Main runs the tests of m and then stops the domain controller if one
// of them started it. Call it from TestMain: os.Exit(sambatest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	shared.Lock()
	defer shared.Unlock()
	if shared.srv != nil {
		shared.srv.stop()
	}
	return code
}

// Domain returns the domain controller serving Fixture(), starting it on
// first use.
func Domain(t testing.TB) *Server {
	t.Helper()
	return domain(t, Fixture(), FixturePasswords(), primaryGroups)
}

// DomainWith returns the domain controller serving ldif with the given
// account passwords; a running one with other contents is stopped first.
func DomainWith(t testing.TB, ldif string, passwords map[string]string) *Server {
	t.Helper()
	return domain(t, ldif, passwords, nil)
}

// users lets one test at a time use the domain (it holds the place until
// it ends) while the package's other tests run in parallel: one domain
// controller on two cores, asked by several tests at once, answers
// Kerberos and LDAPS past their timeouts.
var users = make(chan struct{}, 1)

// domain is DomainWith that sets primary groups too (user -> group, see
// setPrimaryGroups).
func domain(t testing.TB, ldif string, passwords, primary map[string]string) *Server {
	t.Helper()
	Require(t)
	users <- struct{}{}
	t.Cleanup(func() { <-users })
	shared.Lock()
	defer shared.Unlock()
	if shared.srv != nil && shared.ldif == ldif {
		return shared.srv
	}
	if shared.srv != nil {
		shared.srv.stop()
	}
	if shared.failed != nil && shared.ldif == ldif {
		t.Fatalf("the Samba domain did not start (see the first test that asked for it): %v", shared.failed)
	}
	srv, err := start(ldif, passwords, primary)
	shared.ldif, shared.failed = ldif, err
	if err != nil {
		t.Fatalf("starting the Samba domain: %v", err)
	}
	shared.srv = srv
	return srv
}

// start provisions (or copies from the cache) and starts a domain.
func start(ldif string, passwords, primary map[string]string) (*Server, error) {
	dir, err := os.MkdirTemp("", "orgsync-samba-")
	if err != nil {
		return nil, err
	}
	names := slapdtest.ServerNames{CommonName: samba.HostName, DNSNames: []string{samba.HostName, "localhost"}, IPs: []net.IP{net.ParseIP(samba.Address)}}
	files, err := slapdtest.WriteTLS(dir, names)
	if err == nil {
		var s *samba.Server
		s, err = samba.Start(samba.Options{
			Dir: dir, LDIF: ldif, Passwords: passwords,
			CertFile: files.CertFile, KeyFile: files.KeyFile, CAFile: files.CAFile,
			CacheDir: filepath.Join(os.TempDir(), "orgsync-samba-cache"),
		})
		if err == nil {
			srv := &Server{Server: s, TLS: files, Dir: dir}
			if err = srv.setPrimaryGroups(primary); err == nil {
				return srv, nil
			}
			s.Stop()
		}
	}
	os.RemoveAll(dir)
	return nil, err
}

// stop stops the shared server and removes its files.
func (s *Server) stop() {
	s.Stop()
	os.RemoveAll(s.Dir)
	shared.srv = nil
}

// Require skips t when Samba's domain controller cannot run here, or fails
// it in CI (CI=true), where the Active Directory tests must run.
func Require(t testing.TB) {
	t.Helper()
	testenv.Installed(t, samba.Find(), "samba samba-ad-dc samba-ad-provision")
	testenv.Root(t, "Samba's domain controller")
}

// Admin binds to the domain over LDAPS as its Administrator.
func (s *Server) Admin() (*ldap3.Conn, error) {
	conn, err := ldap3.DialURL(s.LDAPSURL, ldap3.DialWithTLSConfig(s.tlsConfig()))
	if err != nil {
		return nil, err
	}
	if err := conn.Bind("Administrator@"+samba.DNSDomain, samba.AdminPassword); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}
