// Package dirsrv runs a throwaway 389 Directory Server, the server of Red
// Hat Directory Server and FreeIPA: an instance made by dscreate (told
// that there is no systemd, with every file of the instance under one
// directory, as `dscreate ds-root` prepares for a user without root), the
// caller's LDIF imported with ns-slapd's ldif2db, the memberOf plugin and
// the size limit set as asked, and ns-slapd started by this package in the
// foreground on free loopback ports: LDAP, and LDAPS with the certificate
// dscreate issued from the instance's own certificate authority. The tests
// of the LDAP source use it (through internal/dirsrvtest), and so does
// `orgsync demo --source freeipa`.
//
// Making an instance takes tens of seconds; one made is kept in
// Options.CacheDir under a key of its contents and copied for later
// servers, each on its own ports, so that several run side by side.
//
// It needs 389 Directory Server (Debian and Ubuntu: apt-get install
// 389-ds-base); Find says what is missing.
package dirsrv

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	ldap3 "github.com/go-ldap/ldap/v3"

	"github.com/orgsync/orgsync/source/ldap/internal/serverproc"
)

// Fixed identities of every instance.
const (
	Suffix       = "dc=example,dc=com"
	RootDN       = "cn=Directory Manager"
	RootPassword = "Directory-Manager-1"
	// HostName is the name the server's certificate carries (its only
	// subject alternative name): clients connect to 127.0.0.1 with
	// tls.serverName set to it.
	HostName = "ipa1.example.com"
	// instance is the instance's name (slapd-orgsync).
	instance = "orgsync"
)

const (
	startDeadline = 60 * time.Second
	stopDeadline  = 30 * time.Second
)

// ErrNotInstalled is returned (wrapped) by Find and Start when 389
// Directory Server is not installed.
var ErrNotInstalled = errors.New("389 Directory Server is not installed (Debian and Ubuntu: apt-get install 389-ds-base; Red Hat: dnf install 389-ds-base)")

// Options configure one server.
type Options struct {
	// Dir holds the server's files. It must exist; the caller removes it.
	Dir string
	// LDIF is the whole directory, the suffix entry (Suffix) first.
	LDIF string
	// MemberOf enables the memberOf plugin (off in a new 389-ds, on in
	// FreeIPA): it keeps each user's memberOf, through nested groups, for
	// the groups whose member attribute names the user (not uniqueMember,
	// unless configured for it, which this package does not do).
	MemberOf bool
	// SizeLimit is nsslapd-sizelimit (0: 389-ds's default, 2000): the
	// most entries a search returns to an account without a limit of its
	// own (nsSizeLimit); a paged search is stopped there when its page
	// size is not below the limit.
	SizeLimit int
	// LookThroughLimit is nsslapd-lookthroughlimit (0: the default,
	// 5000): the most entries one search may examine for an account
	// without a limit of its own (nsLookThroughLimit), its pages together.
	LookThroughLimit int
	// CacheDir keeps made instances between servers; "" makes one every
	// time.
	CacheDir string
}

// CacheDir is where the tests and the demo keep made instances: one
// directory per user of the machine (the instances run as their user).
func CacheDir() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("orgsync-dirsrv-cache-%d", os.Getuid()))
}

// Server is one running instance.
type Server struct {
	URL      string // ldap://127.0.0.1:port
	LDAPSURL string // ldaps://127.0.0.1:port
	// CAFile is the PEM file of the instance's certificate authority,
	// which signed the server's certificate (for HostName).
	CAFile string
	root   string // the instance's files
	proc   *serverproc.Process
}

// installation is where 389 Directory Server's programs and files are.
type installation struct {
	dscreate, nsSlapd string
	defaults          string // defaults.inf
	sysconf           string // /etc/dirsrv: the schema and config to copy
	share             string // /usr/share/dirsrv: data, schema, inf
}

// Find returns an error wrapping ErrNotInstalled when 389 Directory Server
// is missing.
func Find() error {
	_, err := find()
	return err
}

func find() (installation, error) {
	in := installation{sysconf: "/etc/dirsrv", share: "/usr/share/dirsrv"}
	for _, p := range []struct {
		path *string
		name string
	}{{&in.dscreate, "dscreate"}, {&in.nsSlapd, "ns-slapd"}} {
		found, err := exec.LookPath(p.name)
		if err != nil {
			if _, serr := os.Stat("/usr/sbin/" + p.name); serr != nil {
				return in, fmt.Errorf("%w: no %s on PATH", ErrNotInstalled, p.name)
			}
			found = "/usr/sbin/" + p.name
		}
		*p.path = found
	}
	in.defaults = filepath.Join(in.share, "inf", "defaults.inf")
	for _, need := range []string{in.defaults, filepath.Join(in.sysconf, "schema"), filepath.Join(in.share, "data", "template-dse.ldif")} {
		if _, err := os.Stat(need); err != nil {
			return in, fmt.Errorf("%w: %s is missing", ErrNotInstalled, need)
		}
	}
	return in, nil
}

// Start makes the instance (or copies it from the cache) and starts it on
// free loopback ports. Stop stops it.
func Start(opt Options) (*Server, error) {
	in, err := find()
	if err != nil {
		return nil, err
	}
	root := filepath.Join(opt.Dir, "instance")
	if err := placeInstance(in, opt, root); err != nil {
		return nil, err
	}
	s := &Server{root: root, CAFile: filepath.Join(configDir(root), "ca.crt")}
	err = serverproc.Retry(2, func(ports []string) error {
		if err := listenOn(root, ports[0], ports[1]); err != nil {
			return err
		}
		s.URL = "ldap://" + net.JoinHostPort(serverproc.Host, ports[0])
		s.LDAPSURL = "ldaps://" + net.JoinHostPort(serverproc.Host, ports[1])
		return s.start(in)
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// start runs ns-slapd in the foreground and waits until it answers.
func (s *Server) start(in installation) error {
	cmd := exec.Command(in.nsSlapd, "-D", configDir(s.root), "-i", filepath.Join(s.root, "run", "ns-slapd.pid"), "-d", "0")
	proc, err := serverproc.Run(cmd, startDeadline, serverproc.Binds(s.URL, RootDN, RootPassword))
	if err != nil && !errors.Is(err, serverproc.ErrPortTaken) {
		err = fmt.Errorf("389 Directory Server: %w%s", err, errorLog(s.root))
	}
	s.proc = proc
	return err
}

// Admin binds to the server as the directory manager.
func (s *Server) Admin() (*ldap3.Conn, error) {
	conn, err := ldap3.DialURL(s.URL)
	if err != nil {
		return nil, err
	}
	if err := conn.Bind(RootDN, RootPassword); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// Stop stops the server and waits for it to exit; stopping twice is fine.
func (s *Server) Stop() {
	if s.proc != nil {
		s.proc.Stop(stopDeadline)
	}
}

// errorLog returns the end of the error log of the instance at root, for
// errors.
func errorLog(root string) string {
	b, err := os.ReadFile(filepath.Join(root, "var", "log", "dirsrv", "slapd-"+instance, "errors"))
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return "\nerror log:\n" + strings.Join(lines[max(0, len(lines)-20):], "\n")
}

// configDir is where the instance's dse.ldif and certificates are.
func configDir(root string) string {
	return filepath.Join(root, "etc", "dirsrv", "slapd-"+instance)
}
