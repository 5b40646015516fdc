package dirsrv

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"time"

	ldap3 "github.com/go-ldap/ldap/v3"

	"github.com/orgsync/orgsync/source/ldap/internal/serverproc"
)

// templateVersion changes when the way instances are made changes, so
// that cached instances of an older way are not used.
const templateVersion = "1"

// placeInstance puts the instance of opt at root: a copy of the cached one
// when there is one, else a new one (cached when opt.CacheDir is set).
func placeInstance(in installation, opt Options, root string) error {
	if opt.CacheDir == "" {
		return makeInstance(in, opt, root)
	}
	key, err := templateKey(in, opt)
	if err != nil {
		return err
	}
	template, err := serverproc.Cached(opt.CacheDir, "dirsrv-"+key, func(made, final string) error {
		if err := makeInstance(in, opt, made); err != nil {
			return err
		}
		return relocate(made, final)
	})
	if err != nil {
		return err
	}
	if err := copyTree(template, root); err != nil {
		return fmt.Errorf("copying the cached 389 Directory Server instance: %w", err)
	}
	return relocate(root, root)
}

// templateKey names an instance by what is in it and by the installed
// server's defaults (its version among them).
func templateKey(in installation, opt Options) (string, error) {
	defaults, err := os.ReadFile(in.defaults)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%t %d %d\n%s", templateVersion, defaults, opt.MemberOf, opt.SizeLimit, opt.LookThroughLimit, opt.LDIF)
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// makeInstance makes a new instance at root: dscreate, the configuration
// of opt, the LDIF imported, memberOf computed.
func makeInstance(in installation, opt Options, root string) error {
	if err := prepareRoot(in, root); err != nil {
		return err
	}
	if err := create(in, root); err != nil {
		return err
	}
	if err := configure(root, opt); err != nil {
		return err
	}
	if err := importLDIF(in, root, opt.LDIF); err != nil {
		return err
	}
	if opt.MemberOf {
		return fixupMemberOf(in, root)
	}
	return nil
}

// prepareRoot lays out root as `dscreate ds-root` does: copies of the
// server's shared files and default configuration, and a defaults.inf
// that puts every file of an instance under root, with no systemd and no
// SELinux, run by the current user. The data template makes the server
// listen on loopback only, from its first start by dscreate on.
func prepareRoot(in installation, root string) error {
	share := filepath.Join(root, "share", "dirsrv")
	for from, to := range map[string]string{
		in.share: share, filepath.Join(in.sysconf, "schema"): filepath.Join(root, "etc", "dirsrv", "schema"),
		filepath.Join(in.sysconf, "config"): filepath.Join(root, "etc", "dirsrv", "config"),
	} {
		if err := copyTree(from, to); err != nil {
			return err
		}
	}
	defaults, err := os.ReadFile(in.defaults)
	if err != nil {
		return err
	}
	owner, err := currentOwner()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(share, "inf", "defaults.inf"), []byte(rootDefaults(string(defaults), root, owner)), 0o644); err != nil {
		return err
	}
	dse := filepath.Join(share, "data", "template-dse.ldif")
	b, err := os.ReadFile(dse)
	if err != nil {
		return err
	}
	loopback := "nsslapd-listenhost: " + serverproc.Host + "\nnsslapd-securelistenhost: " + serverproc.Host + "\n"
	patched := strings.Replace(string(b), "nsslapd-port: %ds_port%\n", "nsslapd-port: %ds_port%\n"+loopback, 1)
	if patched == string(b) {
		return fmt.Errorf("%s: no nsslapd-port line to add the loopback listener to", dse)
	}
	return os.WriteFile(dse, []byte(patched), 0o644)
}

// owner is the user and group an instance runs as.
type owner struct{ user, group string }

func currentOwner() (owner, error) {
	u, err := user.Current()
	if err != nil {
		return owner{}, err
	}
	g, err := user.LookupGroupId(u.Gid)
	if err != nil {
		return owner{}, err
	}
	return owner{u.Username, g.Name}, nil
}

// rootDefaults rewrites defaults.inf for an instance under root.
func rootDefaults(defaults, root string, o owner) string {
	keep := map[string]bool{"bin_dir": true, "sbin_dir": true, "lib_dir": true, "plugin_dir": true, "tmp_dir": true}
	set := map[string]string{
		"with_systemd": "0", "with_selinux": "", "user": o.user, "group": o.group, "prefix": root,
		"data_dir": filepath.Join(root, "share"), "system_schema_dir": filepath.Join(root, "share", "dirsrv", "schema"),
	}
	lines := strings.Split(defaults, "\n")
	for i, line := range lines {
		key, value, ok := strings.Cut(line, "=")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch v, isSet := set[key]; {
		case !ok || strings.HasPrefix(key, ";") || keep[key]:
		case isSet:
			lines[i] = key + " = " + v
		case strings.HasPrefix(value, "/"):
			lines[i] = key + " = " + root + value
		}
	}
	return strings.Join(lines, "\n")
}

// create runs dscreate for the instance, which it starts once to
// configure and leaves stopped.
func create(in installation, root string) error {
	ports, err := serverproc.FreePorts(2)
	if err != nil {
		return err
	}
	owner, err := currentOwner()
	if err != nil {
		return err
	}
	inf := filepath.Join(root, "instance.inf")
	text := fmt.Sprintf(`[general]
config_version = 2
full_machine_name = %s
strict_host_checking = False
systemd = False
selinux = False
start = False

[slapd]
instance_name = %s
root_password = %s
port = %s
secure_port = %s
self_sign_cert = True
user = %s
group = %s

[backend-userroot]
suffix = %s
`, HostName, instance, RootPassword, ports[0], ports[1], owner.user, owner.group, Suffix)
	if err := os.WriteFile(inf, []byte(text), 0o600); err != nil {
		return err
	}
	cmd := exec.Command(in.dscreate, "from-file", inf)
	cmd.Env = append(os.Environ(), "PREFIX="+root)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("dscreate: %w\n%s", err, out)
	}
	return os.Remove(inf)
}

// configure sets, in the stopped instance's configuration, the limits and
// the memberOf plugin of opt, and a database cache of fixed size (the
// default takes a share of the machine's memory per instance).
func configure(root string, opt Options) error {
	d, err := readDSE(root)
	if err != nil {
		return err
	}
	const bdb = "cn=bdb,cn=config,cn=ldbm database,cn=plugins,cn=config"
	set := [][3]string{{bdb, "nsslapd-cache-autosize", "0"}, {bdb, "nsslapd-dbcachesize", "67108864"}}
	if opt.SizeLimit > 0 {
		set = append(set, [3]string{"cn=config", "nsslapd-sizelimit", fmt.Sprint(opt.SizeLimit)})
	}
	if opt.LookThroughLimit > 0 {
		set = append(set, [3]string{"cn=config,cn=ldbm database,cn=plugins,cn=config", "nsslapd-lookthroughlimit", fmt.Sprint(opt.LookThroughLimit)})
	}
	if opt.MemberOf {
		set = append(set, [3]string{"cn=MemberOf Plugin,cn=plugins,cn=config", "nsslapd-pluginEnabled", "on"})
	}
	for _, s := range set {
		if err := d.set(s[0], s[1], s[2]); err != nil {
			return err
		}
	}
	return d.write()
}

// importLDIF replaces the instance's database with ldif (ns-slapd
// ldif2db, the server stopped).
func importLDIF(in installation, root, ldif string) error {
	file := filepath.Join(root, "import.ldif")
	if err := os.WriteFile(file, []byte(ldif), 0o600); err != nil {
		return err
	}
	defer os.Remove(file)
	out, err := exec.Command(in.nsSlapd, "ldif2db", "-D", configDir(root), "-n", "userroot", "-i", file).CombinedOutput()
	if err != nil {
		return fmt.Errorf("importing the LDIF (ns-slapd ldif2db): %w\n%s%s", err, out, errorLog(root))
	}
	return nil
}

// fixupMemberOf starts the instance and runs the memberOf plugin's fixup
// task, which computes the memberOf values of the entries imported.
func fixupMemberOf(in installation, root string) error {
	s := &Server{root: root}
	err := serverproc.Retry(2, func(ports []string) error {
		if err := listenOn(root, ports[0], ports[1]); err != nil {
			return err
		}
		s.URL = "ldap://" + serverproc.Host + ":" + ports[0]
		return s.start(in)
	})
	if err != nil {
		return err
	}
	defer s.Stop()
	return s.runTask("cn=orgsync memberof fixup,cn=memberof task,cn=tasks,cn=config", "basedn", Suffix, "filter", "(objectClass=*)")
}

// runTask adds a task entry with the given attributes (name, value
// pairs) and waits until the server says it is done.
func (s *Server) runTask(dn string, attrs ...string) error {
	conn, err := s.Admin()
	if err != nil {
		return err
	}
	defer conn.Close()
	add := ldap3.NewAddRequest(dn, nil)
	add.Attribute("objectClass", []string{"top", "extensibleObject"})
	for i := 0; i+1 < len(attrs); i += 2 {
		add.Attribute(attrs[i], []string{attrs[i+1]})
	}
	if err := conn.Add(add); err != nil {
		return fmt.Errorf("adding the task %s: %w", dn, err)
	}
	for deadline := time.Now().Add(startDeadline); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		res, err := conn.Search(ldap3.NewSearchRequest(dn, ldap3.ScopeBaseObject, ldap3.NeverDerefAliases, 0, 0, false,
			"(objectClass=*)", []string{"nsTaskExitCode", "nsTaskLog"}, nil))
		if err != nil {
			return fmt.Errorf("reading the task %s: %w", dn, err)
		}
		if code := res.Entries[0].GetAttributeValue("nsTaskExitCode"); code != "" {
			if code != "0" {
				return fmt.Errorf("the task %s failed (exit code %s): %s", dn, code, res.Entries[0].GetAttributeValue("nsTaskLog"))
			}
			return nil
		}
	}
	return fmt.Errorf("the task %s did not end within %s", dn, startDeadline)
}

// copyTree copies the directory from to to (which must not exist),
// leaving out the database environment's region files (__db.*), which
// the server makes again at its start and which are large.
func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		dst := filepath.Join(to, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, info.Mode().Perm()|0o700)
		case strings.HasPrefix(d.Name(), "__db."):
			return nil
		case d.Type()&fs.ModeSocket != 0:
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, info.Mode().Perm())
	})
}
