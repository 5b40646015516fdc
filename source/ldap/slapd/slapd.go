// Package slapd runs a throwaway OpenLDAP server: a generated slapd.conf
// with the mdb backend in a directory of the caller's, the core, cosine,
// inetorgperson and nis schemas, an LDIF loaded with slapadd, and
// listeners on free loopback ports (several servers run side by side). The tests of the LDAP source use it
// (through internal/slapdtest), and so does `orgsync demo --source ldap`.
//
// It needs OpenLDAP's slapd (Debian and Ubuntu: apt-get install slapd);
// Find says where it is or how to install it.
package slapd

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/orgsync/orgsync/source/ldap/internal/serverproc"
)

// Fixed identities of every server: the suffix and its root account.
const (
	Suffix       = "dc=example,dc=com"
	RootDN       = "cn=admin," + Suffix
	RootPassword = "root-secret"
)

// startDeadline bounds how long Start waits for the server to answer.
const startDeadline = 20 * time.Second

// Where OpenLDAP's files are: Debian and Ubuntu first, then Red Hat and
// Homebrew layouts.
var (
	slapdPaths = []string{"/usr/sbin/slapd", "/usr/libexec/slapd", "/opt/homebrew/opt/openldap/libexec/slapd", "/usr/local/opt/openldap/libexec/slapd"}
	schemaDirs = []string{"/etc/ldap/schema", "/etc/openldap/schema", "/opt/homebrew/etc/openldap/schema", "/usr/local/etc/openldap/schema"}
	moduleDirs = []string{"/usr/lib/ldap", "/usr/lib64/openldap", "/usr/lib/openldap"}
)

// ErrNotInstalled is returned (wrapped) by Find and Start when slapd or its
// schemas are not found.
var ErrNotInstalled = errors.New("OpenLDAP's slapd is not installed (Debian and Ubuntu: apt-get install slapd; Red Hat: dnf install openldap-servers; macOS: brew install openldap)")

// Options configure one server.
type Options struct {
	// Dir holds the server's files: configuration, database, a copy of
	// slapd. It must exist; the caller removes it.
	Dir string
	// LDIF is the whole directory, the suffix entry (Suffix) first.
	LDIF string
	// SizeLimit is the server's size limit for non-paged searches (0:
	// slapd's default, 500). Paged searches may read past it, unless
	// LimitPaged.
	SizeLimit int
	// LimitPaged leaves the total of a paged search to slapd's default,
	// the hard size limit (size.prtotal).
	LimitPaged bool
	// CertFile and KeyFile (PEM) enable StartTLS and an ldaps:// listener.
	CertFile, KeyFile string
	// MemberOf loads the memberof overlay: groupOfNames added over LDAP
	// (not by slapadd) maintain their members' memberOf.
	MemberOf bool
}

// Server is one running slapd.
type Server struct {
	URL      string // ldap://127.0.0.1:port
	LDAPSURL string // ldaps://127.0.0.1:port when TLS is on, else ""
	dir      string
	proc     *serverproc.Process
}

// installation is where slapd and its schemas are.
type installation struct {
	slapd, schemaDir, moduleDir string // moduleDir "" when the backends are built in
}

// Find returns the path of slapd, or an error wrapping ErrNotInstalled.
func Find() (string, error) {
	in, err := find()
	return in.slapd, err
}

// find locates slapd, its schemas and its modules.
func find() (installation, error) {
	in := installation{slapd: firstExisting(slapdPaths), schemaDir: firstExisting(schemaDirs), moduleDir: firstExisting(moduleDirs)}
	if in.slapd == "" {
		if p, err := exec.LookPath("slapd"); err == nil {
			in.slapd = p
		}
	}
	switch {
	case in.slapd == "":
		return in, fmt.Errorf("%w: no slapd in %s or on PATH", ErrNotInstalled, strings.Join(slapdPaths, ", "))
	case in.schemaDir == "":
		return in, fmt.Errorf("%w: no schema directory in %s", ErrNotInstalled, strings.Join(schemaDirs, ", "))
	}
	return in, nil
}

// firstExisting returns the first of paths that exists, or "".
func firstExisting(paths []string) string {
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Start loads opt.LDIF into a new database and starts slapd on free
// loopback ports. Stop stops it.
func Start(opt Options) (*Server, error) {
	in, err := find()
	if err != nil {
		return nil, err
	}
	s := &Server{dir: opt.Dir}
	conf := filepath.Join(s.dir, "slapd.conf")
	ldif := filepath.Join(s.dir, "directory.ldif")
	if err := os.MkdirAll(filepath.Join(s.dir, "db"), 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(conf, []byte(s.config(in, opt)), 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(ldif, []byte(opt.LDIF), 0o600); err != nil {
		return nil, err
	}
	slapd, slapadd, err := privateCopy(in.slapd, s.dir)
	if err != nil {
		return nil, err
	}
	if out, err := exec.Command(slapadd, "-q", "-f", conf, "-l", ldif).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("slapadd: %w\n%s", err, out)
	}
	if err := s.start(slapd, conf, opt.CertFile != ""); err != nil {
		return nil, err
	}
	return s, nil
}

// start runs slapd on free loopback ports (new ones when another program
// took one meanwhile) and waits until it answers.
func (s *Server) start(slapd, conf string, withTLS bool) error {
	n := 1
	if withTLS {
		n = 2
	}
	return serverproc.Retry(n, func(ports []string) error {
		s.URL = "ldap://" + net.JoinHostPort(serverproc.Host, ports[0])
		listen := s.URL + "/"
		if withTLS {
			s.LDAPSURL = "ldaps://" + net.JoinHostPort(serverproc.Host, ports[1])
			listen += " " + s.LDAPSURL + "/"
		}
		proc, err := serverproc.Run(exec.Command(slapd, "-f", conf, "-h", listen, "-d", "0"), startDeadline, serverproc.Binds(s.URL, RootDN, RootPassword))
		if err != nil {
			return err
		}
		s.proc = proc
		return nil
	})
}

// privateCopy copies slapd into dir and links slapadd to it (slapd acts as
// slapadd when called by that name). Ubuntu's AppArmor profile for
// /usr/sbin/slapd forbids reading a temporary directory; a copy elsewhere
// is not confined.
func privateCopy(path, dir string) (slapd, slapadd string, err error) {
	bin, err := os.ReadFile(path)
	if err != nil {
		return "", "", err
	}
	slapd, slapadd = filepath.Join(dir, "slapd"), filepath.Join(dir, "slapadd")
	if err := os.WriteFile(slapd, bin, 0o700); err != nil {
		return "", "", err
	}
	return slapd, slapadd, os.Symlink("slapd", slapadd)
}

// Stop stops the server and waits for it to exit; stopping twice is fine.
func (s *Server) Stop() {
	s.proc.Kill()
}

// config returns the server's slapd.conf.
func (s *Server) config(in installation, opt Options) string {
	var b strings.Builder
	for _, schema := range []string{"core", "cosine", "inetorgperson", "nis"} {
		fmt.Fprintf(&b, "include %s/%s.schema\n", in.schemaDir, schema)
	}
	if in.moduleDir != "" {
		fmt.Fprintf(&b, "modulepath %s\nmoduleload back_mdb\n", in.moduleDir)
		if opt.MemberOf {
			b.WriteString("moduleload memberof\n")
		}
	}
	fmt.Fprintf(&b, "pidfile %s/slapd.pid\nargsfile %s/slapd.args\n", s.dir, s.dir)
	if opt.SizeLimit > 0 && opt.LimitPaged {
		fmt.Fprintf(&b, "sizelimit size.soft=%d size.hard=%d\n", opt.SizeLimit, opt.SizeLimit)
	} else if opt.SizeLimit > 0 {
		fmt.Fprintf(&b, "sizelimit size.soft=%d size.hard=%d size.prtotal=unlimited\n", opt.SizeLimit, opt.SizeLimit)
	}
	if opt.CertFile != "" {
		fmt.Fprintf(&b, "TLSCertificateFile %s\nTLSCertificateKeyFile %s\n", opt.CertFile, opt.KeyFile)
	}
	fmt.Fprintf(&b, "database mdb\nmaxsize 1073741824\nsuffix %q\nrootdn %q\nrootpw %s\ndirectory %s/db\n",
		Suffix, RootDN, RootPassword, s.dir)
	b.WriteString("index objectClass,uid,member,uniqueMember,memberUid eq\n")
	if opt.MemberOf {
		b.WriteString("overlay memberof\n")
	}
	b.WriteString("access to attrs=userPassword by anonymous auth by * none\naccess to * by * read\n")
	return b.String()
}
