// Package samba runs a throwaway Active Directory domain controller: Samba
// provisions the domain CORP.EXAMPLE.COM in a directory of the caller's,
// the caller's entries are added, and the domain controller serves LDAP
// (389), LDAPS (636) and Kerberos (88) in a network namespace of its own,
// forwarded from free ports of 127.0.0.1 (Server's URLs): several domain
// controllers run side by side, and beside a directory server of the
// machine on those ports. The tests of the LDAP source use it (through
// internal/sambatest), and so does `orgsync demo --source activedirectory`.
//
// Samba's domain controller, and the namespace, need root. Provisioning
// and adding thousands of entries take tens of seconds; a domain made once
// is kept in Options.CacheDir under a key of its contents and copied for
// later servers.
//
// It needs Samba's domain controller (Debian and Ubuntu: apt-get install
// samba samba-ad-dc krb5-user); Find says what is missing.
package samba

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	ldap3 "github.com/go-ldap/ldap/v3"

	"github.com/orgsync/orgsync/source/ldap/internal/netns"
	"github.com/orgsync/orgsync/source/ldap/internal/serverproc"
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
	// Address is where the domain controller's ports are forwarded from.
	Address = netns.Host
)

// Ports the domain controller listens on in its namespace (fixed by
// Samba).
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
	URL      string // ldap://127.0.0.1:port
	LDAPSURL string // ldaps://127.0.0.1:port
	KDC      string // 127.0.0.1:port (TCP only)
	// Krb5Conf is a krb5.conf naming the realm and its KDC.
	Krb5Conf string
	dir      string
	conf     string // smb.conf
	ns       *netns.Namespace
	proc     *serverproc.Process
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
// controller in a network namespace of its own and waits until LDAP and
// Kerberos answer. Stop stops it.
func Start(opt Options) (*Server, error) {
	in, err := find()
	if err != nil {
		return nil, err
	}
	if os.Geteuid() != 0 {
		return nil, errors.New("Samba's domain controller must run as root")
	}
	domain := filepath.Join(opt.Dir, "domain")
	if err := makeDomain(in, opt, domain); err != nil {
		return nil, err
	}
	s := &Server{Krb5Conf: filepath.Join(opt.Dir, "krb5.conf"), dir: domain, conf: filepath.Join(domain, "etc", "smb.conf")}
	if err := configure(s.conf, domain, opt); err != nil {
		return nil, err
	}
	if s.ns, err = netns.New(); err != nil {
		return nil, err
	}
	if err := s.start(in); err != nil {
		s.ns.Close()
		return nil, err
	}
	return s, nil
}

// forward forwards the domain controller's ports from the machine's
// loopback and sets the server's addresses and krb5.conf.
func (s *Server) forward() error {
	addrs := make([]string, 3)
	for i, port := range []string{ldapPort, ldapsPort, kerberosPort} {
		var err error
		if addrs[i], err = s.ns.Forward(port); err != nil {
			return err
		}
	}
	s.URL, s.LDAPSURL, s.KDC = "ldap://"+addrs[0], "ldaps://"+addrs[1], addrs[2]
	return os.WriteFile(s.Krb5Conf, []byte(Krb5Conf(s.KDC)), 0o644)
}

// Krb5Conf returns a krb5.conf for the realm with kdc as its KDC, asked
// over TCP.
func Krb5Conf(kdc string) string {
	return fmt.Sprintf(`[libdefaults]
	default_realm = %[1]s
	udp_preference_limit = 1
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

// start runs samba in the foreground in the namespace, in its own process
// group, killed if the namespace's thread ends first, and waits until it
// answers.
func (s *Server) start(in installation) error {
	if err := s.forward(); err != nil {
		return err
	}
	cmd := exec.Command(in.samba, "-i", "-M", "single", "-s", s.conf, "--debuglevel=1")
	netns.DiesWithNamespace(cmd)
	err := errors.New("the network namespace is closed")
	s.ns.Do(func() { s.proc, err = serverproc.Start(cmd) })
	if err != nil {
		return fmt.Errorf("starting samba: %w", err)
	}
	if err := s.proc.WaitUp(startDeadline, s.answers); err != nil {
		s.proc.Kill()
		return fmt.Errorf("samba did not start: %w\n%s", err, s.proc.Logs())
	}
	return nil
}

// Stop stops the domain controller (its process group) and its namespace,
// and waits for it to exit; stopping twice is fine.
func (s *Server) Stop() {
	s.proc.Stop(stopDeadline)
	if s.ns != nil {
		s.ns.Close()
		s.ns = nil
	}
}

// answers reads the root DSE over LDAP and connects to the KDC.
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
	kdc, err := s.ns.Dial(kerberosPort)
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
