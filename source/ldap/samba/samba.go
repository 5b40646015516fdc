// Package samba runs a throwaway Active Directory domain controller: Samba
// provisions the domain CORP.EXAMPLE.COM in a directory of the caller's,
// the caller's entries are added, and the domain controller serves LDAP
// (389), LDAPS (636) and Kerberos (88) on 127.0.0.1. The tests of the LDAP
// source use it (through internal/sambatest), and so does
// `orgsync demo --source activedirectory`.
//
// Samba's domain controller must run as root and listens on the fixed
// ports, so only one runs at a time on a machine. Provisioning and adding
// thousands of entries take tens of seconds; a domain made once is kept in
// Options.CacheDir under a key of its contents and copied for later
// servers.
//
// It needs Samba's domain controller (Debian and Ubuntu: apt-get install
// samba samba-ad-dc krb5-user); Find says what is missing.
package samba

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	ldap3 "github.com/go-ldap/ldap/v3"
)

// Fixed identities of every domain.
const (
	Realm         = "CORP.EXAMPLE.COM"
	DNSDomain     = "corp.example.com"
	NetBIOSDomain = "CORP"
	BaseDN        = "DC=corp,DC=example,DC=com"
	HostName      = "dc1." + DNSDomain
	// SPN is the domain controller's LDAP service principal.
	SPN           = "ldap/" + HostName
	AdminPassword = "Admin-Secret-1"
	// Address is where the domain controller listens.
	Address = "127.0.0.1"
)

// Ports the domain controller listens on (fixed by Samba).
const (
	ldapPort     = "389"
	ldapsPort    = "636"
	kerberosPort = "88"
)

const (
	startDeadline = 60 * time.Second
	stopDeadline  = 10 * time.Second
	// templateVersion changes when the way domains are made changes, so
	// that cached domains of an older way are not used.
	templateVersion = "2"
)

// ErrNotInstalled is returned (wrapped) by Find and Start when Samba's
// domain controller is not installed.
var ErrNotInstalled = errors.New("Samba's Active Directory domain controller is not installed (Debian and Ubuntu: apt-get install samba samba-ad-dc krb5-user)")

// Options configure one domain controller.
type Options struct {
	// Dir holds the domain's files. It must exist; the caller removes it.
	Dir string
	// LDIF holds the entries added to the provisioned domain, under
	// BaseDN. Passwords sets account passwords by sAMAccountName.
	LDIF      string
	Passwords map[string]string
	// CertFile, KeyFile and CAFile (PEM) are the certificate LDAPS and
	// StartTLS present; empty uses Samba's own, which has no subject
	// alternative name.
	CertFile, KeyFile, CAFile string
	// CacheDir keeps provisioned domains between servers; "" provisions
	// every time.
	CacheDir string
}

// Server is one running domain controller.
type Server struct {
	URL      string // ldap://127.0.0.1
	LDAPSURL string // ldaps://127.0.0.1
	KDC      string // 127.0.0.1:88
	// Krb5Conf is a krb5.conf naming the realm and its KDC.
	Krb5Conf string
	dir      string
	conf     string // smb.conf
	cmd      *exec.Cmd
	done     chan struct{}
	logs     bytes.Buffer
}

// installation is where Samba's programs are.
type installation struct {
	samba, sambaTool, python string
}

// Find returns an error wrapping ErrNotInstalled when Samba's domain
// controller or its provisioning files are missing.
func Find() error {
	_, err := find()
	return err
}

func find() (installation, error) {
	var in installation
	for _, p := range []struct {
		path *string
		name string
	}{{&in.samba, "samba"}, {&in.sambaTool, "samba-tool"}} {
		found, err := exec.LookPath(p.name)
		if err != nil {
			if _, serr := os.Stat("/usr/sbin/" + p.name); serr != nil {
				return in, fmt.Errorf("%w: no %s on PATH", ErrNotInstalled, p.name)
			}
			found = "/usr/sbin/" + p.name
		}
		*p.path = found
	}
	if _, err := os.Stat("/usr/share/samba/setup/ad-schema"); err != nil {
		return in, fmt.Errorf("%w: the provisioning files (package samba-ad-provision) are missing", ErrNotInstalled)
	}
	in.python = interpreter(in.sambaTool)
	return in, nil
}

// interpreter returns the Python that runs samba-tool (its #! line), which
// is the one that has Samba's modules.
func interpreter(script string) string {
	b, err := os.ReadFile(script)
	if err == nil && bytes.HasPrefix(b, []byte("#!")) {
		line, _, _ := bytes.Cut(b[2:], []byte("\n"))
		if f := strings.Fields(string(line)); len(f) > 0 && !strings.HasSuffix(f[0], "/env") {
			return f[0]
		}
	}
	return "python3"
}

// Start makes the domain (or copies it from the cache), starts the domain
// controller and waits until LDAP and Kerberos answer. Stop stops it.
func Start(opt Options) (*Server, error) {
	in, err := find()
	if err != nil {
		return nil, err
	}
	if os.Geteuid() != 0 {
		return nil, errors.New("Samba's domain controller must run as root")
	}
	for _, port := range []string{ldapPort, ldapsPort, kerberosPort} {
		if c, err := net.DialTimeout("tcp", net.JoinHostPort(Address, port), time.Second); err == nil {
			c.Close()
			return nil, fmt.Errorf("port %s on %s is taken: another directory server or Samba is running; stop it first", port, Address)
		}
	}
	domain := filepath.Join(opt.Dir, "domain")
	if err := makeDomain(in, opt, domain); err != nil {
		return nil, err
	}
	s := &Server{
		URL: "ldap://" + Address, LDAPSURL: "ldaps://" + Address, KDC: net.JoinHostPort(Address, kerberosPort),
		Krb5Conf: filepath.Join(opt.Dir, "krb5.conf"), dir: domain, conf: filepath.Join(domain, "etc", "smb.conf"),
		done: make(chan struct{}),
	}
	if err := os.WriteFile(s.Krb5Conf, []byte(Krb5Conf(s.KDC)), 0o644); err != nil {
		return nil, err
	}
	if err := configure(s.conf, domain, opt); err != nil {
		return nil, err
	}
	if err := s.start(in); err != nil {
		return nil, err
	}
	return s, nil
}

// Krb5Conf returns a krb5.conf for the realm with kdc as its KDC.
func Krb5Conf(kdc string) string {
	return fmt.Sprintf(`[libdefaults]
	default_realm = %[1]s
	dns_lookup_kdc = false
	dns_lookup_realm = false
	rdns = false

[realms]
	%[1]s = {
		kdc = %[2]s
	}

[domain_realm]
	.%[3]s = %[1]s
	%[3]s = %[1]s
`, Realm, kdc, DNSDomain)
}

// start runs samba in the foreground, in its own process group, and waits
// until it answers.
func (s *Server) start(in installation) error {
	s.cmd = exec.Command(in.samba, "-i", "-M", "single", "-s", s.conf, "--debuglevel=1")
	s.cmd.Stdout, s.cmd.Stderr = &s.logs, &s.logs
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("starting samba: %w", err)
	}
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	if err := s.waitUp(); err != nil {
		s.Stop()
		return fmt.Errorf("samba did not start: %w\n%s", err, s.logs.String())
	}
	return nil
}

// Stop stops the domain controller (its process group, by its id) and
// waits for it to exit; stopping twice is fine.
func (s *Server) Stop() {
	if s.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(stopDeadline):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	}
}

// PID is the process id of samba.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// StopLeftover stops a domain controller this package started in an
// earlier process that ended without stopping it (a test binary that
// panicked): pid is its process id, and it is stopped only when that
// process still runs Samba. It waits until the ports are free.
func StopLeftover(pid int) {
	in, err := find()
	if err != nil || pid <= 0 {
		return
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil || filepath.Base(exe) != filepath.Base(in.samba) {
		return
	}
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	for deadline := time.Now().Add(stopDeadline); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); err != nil {
			return
		}
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// Logs returns what samba wrote so far.
func (s *Server) Logs() string { return s.logs.String() }

// waitUp polls until the root DSE answers over LDAP and the KDC accepts a
// connection, samba exits, or the deadline passes.
func (s *Server) waitUp() error {
	deadline := time.Now().Add(startDeadline)
	for {
		err := s.answers()
		if err == nil {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("samba exited: %v", s.cmd.ProcessState)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return err
		}
	}
}

func (s *Server) answers() error {
	conn, err := ldap3.DialURL(s.URL)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.Search(ldap3.NewSearchRequest("", ldap3.ScopeBaseObject, ldap3.NeverDerefAliases, 0, 5, false,
		"(objectClass=*)", []string{"dnsHostName"}, nil)); err != nil {
		return err
	}
	kdc, err := net.DialTimeout("tcp", s.KDC, time.Second)
	if err != nil {
		return err
	}
	return kdc.Close()
}

// ExportKeytab writes the keys of principal (e.g. svc@CORP.EXAMPLE.COM)
// to a keytab at path.
func (s *Server) ExportKeytab(principal, path string) error {
	in, err := find()
	if err != nil {
		return err
	}
	out, err := exec.Command(in.sambaTool, "domain", "exportkeytab", path, "--principal="+principal, "-s", s.conf).CombinedOutput()
	if err != nil {
		return fmt.Errorf("samba-tool domain exportkeytab: %w\n%s", err, out)
	}
	return nil
}
