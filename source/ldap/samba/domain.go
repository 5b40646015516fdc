package samba

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// populateScript adds the caller's entries to a stopped domain in one
// transaction, much faster than adding them over LDAP.
//
//go:embed populate.py
var populateScript string

// templateMaxIdle is how long a cached domain may go unused before a new
// one being cached removes it.
const templateMaxIdle = 24 * time.Hour

// makeDomain puts the domain of opt into dir: a copy of the cached one when
// there is one, else a new one (cached when opt.CacheDir is set).
func makeDomain(in installation, opt Options, dir string) error {
	if opt.CacheDir == "" {
		return provision(in, opt, dir)
	}
	template := filepath.Join(opt.CacheDir, "domain-"+templateKey(opt))
	if _, err := os.Stat(template); err != nil {
		if err := cache(in, opt, template); err != nil {
			return err
		}
	}
	now := time.Now()
	_ = os.Chtimes(template, now, now)
	if out, err := exec.Command("cp", "-a", template, dir).CombinedOutput(); err != nil {
		return fmt.Errorf("copying the cached domain: %w\n%s", err, out)
	}
	conf := filepath.Join(dir, "etc", "smb.conf")
	b, err := os.ReadFile(conf)
	if err != nil {
		return err
	}
	return os.WriteFile(conf, []byte(strings.ReplaceAll(string(b), template, dir)), 0o600)
}

// templateKey names a domain by what is in it.
func templateKey(opt Options) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n", templateVersion, populateScript, opt.LDIF)
	names := make([]string, 0, len(opt.Passwords))
	for n := range opt.Passwords {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(h, "%s=%s\n", n, opt.Passwords[n])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// cache provisions the domain into a new directory beside template and
// renames it into place, then removes cached domains long unused.
func cache(in installation, opt Options, template string) error {
	if err := os.MkdirAll(opt.CacheDir, 0o700); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(opt.CacheDir, "new-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	made := filepath.Join(tmp, "domain")
	if err := provision(in, opt, made); err != nil {
		return err
	}
	conf := filepath.Join(made, "etc", "smb.conf")
	b, err := os.ReadFile(conf)
	if err != nil {
		return err
	}
	if err := os.WriteFile(conf, []byte(strings.ReplaceAll(string(b), made, template)), 0o600); err != nil {
		return err
	}
	if err := os.Rename(made, template); err != nil && !os.IsExist(err) {
		if _, statErr := os.Stat(template); statErr != nil { // not made meanwhile by another run
			return err
		}
	}
	pruneCache(opt.CacheDir, template)
	return nil
}

// pruneCache removes the cached domains but keep unused for templateMaxIdle.
func pruneCache(dir, keep string) {
	old, _ := filepath.Glob(filepath.Join(dir, "domain-*"))
	for _, d := range old {
		if st, err := os.Stat(d); err == nil && d != keep && time.Since(st.ModTime()) > templateMaxIdle {
			_ = os.RemoveAll(d)
		}
	}
}

// servicePrincipals adds the LDAP service principals of the domain
// controller, which Samba's samba_spnupdate would add at its first start
// (as a Windows domain controller registers them).
const servicePrincipals = "dn: CN=DC1,OU=Domain Controllers," + BaseDN + `
changetype: modify
add: servicePrincipalName
servicePrincipalName: ldap/` + HostName + `
servicePrincipalName: ldap/` + HostName + "/" + DNSDomain + `
servicePrincipalName: ldap/DC1

`

// provision makes a new domain in dir and adds opt's entries.
func provision(in installation, opt Options, dir string) error {
	out, err := exec.Command(in.sambaTool, "domain", "provision", "--server-role=dc", "--targetdir="+dir,
		"--realm="+Realm, "--domain="+NetBIOSDomain, "--host-name="+strings.SplitN(HostName, ".", 2)[0],
		"--adminpass="+AdminPassword, "--dns-backend=NONE",
		"--option=interfaces=lo", "--option=bind interfaces only=yes").CombinedOutput()
	if err != nil {
		return fmt.Errorf("samba-tool domain provision: %w\n%s", err, out)
	}
	var input strings.Builder
	input.WriteString(servicePrincipals)
	input.WriteString(opt.LDIF)
	input.WriteString("\n--\n")
	for name, pw := range opt.Passwords {
		fmt.Fprintf(&input, "%s=%s\n", name, pw)
	}
	cmd := exec.Command(in.python, "-c", populateScript, filepath.Join(dir, "etc", "smb.conf"))
	cmd.Stdin = strings.NewReader(input.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("adding the entries to the domain: %w\n%s", err, out)
	}
	return nil
}

// configure rewrites the [global] section of smb.conf for a test server:
// only the LDAP server and the KDC, no fsync, logs in the domain's
// directory, and the TLS files of opt.
func configure(conf, dir string, opt Options) error {
	set := map[string]string{
		"server services": "ldap, kdc",
		"ldb:nosync":      "true",
		"log file":        filepath.Join(dir, "log.%m"),
		"pid directory":   dir,
	}
	if opt.CertFile != "" {
		set["tls enabled"] = "yes"
		set["tls keyfile"], set["tls certfile"], set["tls cafile"] = opt.KeyFile, opt.CertFile, opt.CAFile
	}
	b, err := os.ReadFile(conf)
	if err != nil {
		return err
	}
	var out strings.Builder
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		line := sc.Text()
		key, _, _ := strings.Cut(strings.TrimSpace(line), "=")
		if _, ok := set[strings.TrimSpace(key)]; ok {
			continue
		}
		out.WriteString(line + "\n")
		if strings.TrimSpace(line) == "[global]" {
			for _, k := range sortedKeys(set) {
				fmt.Fprintf(&out, "\t%s = %s\n", k, set[k])
			}
		}
	}
	return os.WriteFile(conf, []byte(out.String()), 0o600)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
