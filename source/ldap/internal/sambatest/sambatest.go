// Package sambatest gives the tests of a package one real Active Directory
// domain controller (package samba), shared by them and stopped by Main:
// Samba listens on fixed ports, so one runs at a time, and a domain takes
// seconds to start. The domain holds Fixture, and LDAPS and StartTLS
// present a certificate of a test CA with the names clients check.
//
// When Samba's domain controller is not installed, or the tests do not run
// as root, Domain skips the test, except in CI (CI=true), where it fails
// it: the Active Directory tests must run there.
package sambatest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	ldap3 "github.com/go-ldap/ldap/v3"

	"github.com/orgsync/orgsync/source/ldap/internal/slapdtest"
	"github.com/orgsync/orgsync/source/ldap/samba"
)

// Server is the running domain controller and the files of its test CA.
type Server struct {
	*samba.Server
	TLS slapdtest.TLSFiles
	// Dir lives as long as the server; tests may write files there.
	Dir  string
	lock *os.File // machineLock, held while the server runs
}

// shared is the one domain controller of a test binary.
var shared struct {
	sync.Mutex
	srv    *Server
	ldif   string
	failed error
}

// machineLock is held (flock) by the test binary whose domain controller
// runs: test binaries run side by side (go test without -p 1) wait for
// each other, since the ports are fixed. The kernel releases it when its
// holder dies.
var machineLock = filepath.Join(os.TempDir(), "orgsync-samba.lock")

// lockMachine waits until no other test binary runs a domain controller.
func lockMachine() (*os.File, error) {
	f, err := os.OpenFile(machineLock, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", machineLock, err)
	}
	return f, nil
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

// domain is DomainWith that sets primary groups too (user -> group, see
// setPrimaryGroups).
func domain(t testing.TB, ldif string, passwords, primary map[string]string) *Server {
	t.Helper()
	Require(t)
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

// leftover records the domain controller running now (its process id and
// directory), so that the next test binary stops it if this one dies
// without stopping it.
var leftover = filepath.Join(os.TempDir(), "orgsync-samba.running")

// stopLeftover stops the domain controller of a test binary that died.
func stopLeftover() {
	b, err := os.ReadFile(leftover)
	if err != nil {
		return
	}
	var pid int
	var dir string
	if _, err := fmt.Sscanf(string(b), "%d %s", &pid, &dir); err == nil {
		samba.StopLeftover(pid)
		if strings.HasPrefix(filepath.Base(dir), "orgsync-samba-") {
			os.RemoveAll(dir)
		}
	}
	os.Remove(leftover)
}

// start provisions (or copies from the run's cache) and starts a domain,
// once no other test binary runs one.
func start(ldif string, passwords, primary map[string]string) (*Server, error) {
	lock, err := lockMachine()
	if err != nil {
		return nil, err
	}
	srv, err := startLocked(ldif, passwords, primary)
	if err != nil {
		lock.Close()
		return nil, err
	}
	srv.lock = lock
	return srv, nil
}

// startLocked is start once the machine is locked.
func startLocked(ldif string, passwords, primary map[string]string) (*Server, error) {
	stopLeftover()
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
			_ = os.WriteFile(leftover, fmt.Appendf(nil, "%d %s\n", s.PID(), dir), 0o600)
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
	os.Remove(leftover)
	s.lock.Close() // releases the lock
	shared.srv = nil
}

// Require skips t when Samba's domain controller cannot run here, or fails
// it in CI (CI=true), where the Active Directory tests must run.
func Require(t testing.TB) {
	t.Helper()
	err := samba.Find()
	if err == nil && os.Geteuid() != 0 {
		err = fmt.Errorf("Samba's domain controller must run as root")
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v: run scripts/test-deps.sh as root (CI must run the Active Directory tests)", err)
		}
		t.Skipf("%v: run scripts/test-deps.sh", err)
	}
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
