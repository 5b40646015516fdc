// Package slapdtest starts a real OpenLDAP slapd for tests: a generated
// slapd.conf with the mdb backend in a temporary directory, the core,
// cosine, inetorgperson and nis schemas, an LDIF fixture loaded with
// slapadd, and a listener on a free loopback port. The server is stopped
// when the test ends.
//
// When slapd is not installed, Start skips the test, except in CI
// (CI=true), where it fails it: the LDAP tests must run there.
package slapdtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ldap3 "github.com/go-ldap/ldap/v3"
)

// Paths of Debian's OpenLDAP packages.
const (
	SlapdPath = "/usr/sbin/slapd"
	SchemaDir = "/etc/ldap/schema"
	ModuleDir = "/usr/lib/ldap"
)

// Fixed identities of every test server.
const (
	Suffix        = "dc=example,dc=com"
	RootDN        = "cn=admin," + Suffix
	RootPassword  = "root-secret"
	ReaderDN      = "cn=reader," + Suffix // a plain account, subject to the size limit
	ReaderPasswd  = "reader-secret"
	startDeadline = 20 * time.Second
)

// Options configure one server.
type Options struct {
	// LDIF is the fixture, loaded after the suffix entry and the reader
	// account (which Start writes itself).
	LDIF string
	// SizeLimit is the server's size limit for non-paged searches (0:
	// slapd's default, 500). Paged searches may read past it.
	SizeLimit int
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
	cmd      *exec.Cmd
	done     chan struct{}
}

// Start starts a server for t and stops it at cleanup.
func Start(t testing.TB, opt Options) *Server {
	t.Helper()
	if _, err := os.Stat(SlapdPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("slapd not found at %s: run scripts/test-deps.sh (CI must run the LDAP tests)", SlapdPath)
		}
		t.Skipf("slapd not found at %s: run scripts/test-deps.sh", SlapdPath)
	}
	s := &Server{dir: t.TempDir(), done: make(chan struct{})}
	conf := filepath.Join(s.dir, "slapd.conf")
	must(t, os.MkdirAll(filepath.Join(s.dir, "db"), 0o700))
	must(t, os.WriteFile(conf, []byte(s.config(opt)), 0o600))
	ldif := filepath.Join(s.dir, "fixture.ldif")
	must(t, os.WriteFile(ldif, []byte(baseLDIF+"\n"+opt.LDIF), 0o600))
	slapd, slapadd := privateCopy(t, s.dir)
	if out, err := exec.Command(slapadd, "-q", "-f", conf, "-l", ldif).CombinedOutput(); err != nil {
		t.Fatalf("slapadd: %v\n%s", err, out)
	}
	s.URL = "ldap://127.0.0.1:" + freePort(t)
	listen := s.URL + "/"
	if opt.CertFile != "" {
		s.LDAPSURL = "ldaps://127.0.0.1:" + freePort(t)
		listen += " " + s.LDAPSURL + "/"
	}
	s.cmd = exec.Command(slapd, "-f", conf, "-h", listen, "-d", "0")
	var logs strings.Builder
	s.cmd.Stdout, s.cmd.Stderr = &logs, &logs
	must(t, s.cmd.Start())
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	t.Cleanup(s.Stop)
	if err := s.waitUp(); err != nil {
		t.Fatalf("slapd did not start: %v\n%s", err, logs.String())
	}
	return s
}

// privateCopy copies slapd into dir and links slapadd to it (slapd acts as
// slapadd when called by that name). Ubuntu's AppArmor profile for
// /usr/sbin/slapd forbids reading a temporary directory; a copy elsewhere
// is not confined.
func privateCopy(t testing.TB, dir string) (slapd, slapadd string) {
	t.Helper()
	bin, err := os.ReadFile(SlapdPath)
	must(t, err)
	slapd, slapadd = filepath.Join(dir, "slapd"), filepath.Join(dir, "slapadd")
	must(t, os.WriteFile(slapd, bin, 0o700))
	must(t, os.Symlink("slapd", slapadd))
	return slapd, slapadd
}

// Stop stops the server and waits for it to exit; stopping twice is fine.
func (s *Server) Stop() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
	}
	<-s.done
}

// waitUp polls until the server accepts an LDAP bind, it exits, or the
// deadline passes.
func (s *Server) waitUp() error {
	deadline := time.Now().Add(startDeadline)
	for {
		conn, err := ldap3.DialURL(s.URL)
		if err == nil {
			err = conn.Bind(RootDN, RootPassword)
			conn.Close()
			if err == nil {
				return nil
			}
		}
		select {
		case <-s.done:
			return fmt.Errorf("slapd exited: %v", s.cmd.ProcessState)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return err
		}
	}
}

func (s *Server) config(opt Options) string {
	var b strings.Builder
	for _, schema := range []string{"core", "cosine", "inetorgperson", "nis"} {
		fmt.Fprintf(&b, "include %s/%s.schema\n", SchemaDir, schema)
	}
	fmt.Fprintf(&b, "modulepath %s\nmoduleload back_mdb\n", ModuleDir)
	if opt.MemberOf {
		b.WriteString("moduleload memberof\n")
	}
	fmt.Fprintf(&b, "pidfile %s/slapd.pid\nargsfile %s/slapd.args\n", s.dir, s.dir)
	if opt.SizeLimit > 0 {
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

// baseLDIF is the suffix entry and the reader account.
const baseLDIF = `dn: ` + Suffix + `
objectClass: dcObject
objectClass: organization
dc: example
o: Example

dn: ` + ReaderDN + `
objectClass: organizationalRole
objectClass: simpleSecurityObject
cn: reader
userPassword: ` + ReaderPasswd + `
`

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer l.Close()
	_, port, err := net.SplitHostPort(l.Addr().String())
	must(t, err)
	return port
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
