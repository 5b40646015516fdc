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

	"github.com/orgsync/orgsync/source/ldap/internal/serverproc"
)

// populateScript adds the caller's entries to a stopped domain in one
// transaction, much faster than adding them over LDAP.
//
//go:embed populate.py
var populateScript string

// makeDomain puts the domain of opt into dir: a copy of the cached one when
// there is one, else a new one (cached when opt.CacheDir is set).
func makeDomain(in installation, opt Options, dir string) error {
	if opt.CacheDir == "" {
		return provision(in, opt, dir)
	}
	template, err := serverproc.Cached(opt.CacheDir, "domain-"+templateKey(opt), func(made, final string) error {
		if err := provision(in, opt, made); err != nil {
			return err
		}
		return replaceInFile(filepath.Join(made, "etc", "smb.conf"), made, final)
	})
	if err != nil {
		return err
	}
	if out, err := exec.Command("cp", "-a", template, dir).CombinedOutput(); err != nil {
		return fmt.Errorf("copying the cached domain: %w\n%s", err, out)
	}
	return replaceInFile(filepath.Join(dir, "etc", "smb.conf"), template, dir)
}

// replaceInFile replaces old with new in the file at path.
func replaceInFile(path, old, new string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(strings.ReplaceAll(string(b), old, new)), 0o600)
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
