package dirsrv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// dse is an instance's configuration, dse.ldif, unfolded: one line per
// attribute value (ns-slapd reads long lines as well as folded ones).
type dse struct {
	path  string
	lines []string
}

func readDSE(root string) (*dse, error) {
	path := filepath.Join(configDir(root), "dse.ldif")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, " "); ok && len(lines) > 0 {
			lines[len(lines)-1] += rest
			continue
		}
		lines = append(lines, line)
	}
	return &dse{path: path, lines: lines}, nil
}

func (d *dse) write() error {
	return os.WriteFile(d.path, []byte(strings.Join(d.lines, "\n")), 0o600)
}

// replaceAll replaces old with new in every line.
func (d *dse) replaceAll(old, new string) {
	for i, line := range d.lines {
		d.lines[i] = strings.ReplaceAll(line, old, new)
	}
}

// set gives attribute attr of entry dn the one value value, adding it
// when the entry lacks it. Names compare ignoring case.
func (d *dse) set(dn, attr, value string) error {
	start := -1
	for i, line := range d.lines {
		if strings.EqualFold(line, "dn: "+dn) {
			start = i
			break
		}
	}
	if start < 0 {
		return fmt.Errorf("%s has no entry %s", d.path, dn)
	}
	end := start + 1
	for end < len(d.lines) && d.lines[end] != "" {
		end++
	}
	var entry []string
	for _, line := range d.lines[start+1 : end] {
		name, _, _ := strings.Cut(line, ":")
		if !strings.EqualFold(name, attr) {
			entry = append(entry, line)
		}
	}
	entry = append(entry, attr+": "+value)
	d.lines = append(d.lines[:start+1], append(entry, d.lines[end:]...)...)
	return nil
}

// listenOn makes the stopped instance at root listen on port (LDAP) and
// securePort (LDAPS) of the loopback address only, without the LDAPI
// socket (whose path could be too long under a test's directory).
func listenOn(root, port, securePort string) error {
	d, err := readDSE(root)
	if err != nil {
		return err
	}
	for attr, value := range map[string]string{"nsslapd-port": port, "nsslapd-securePort": securePort, "nsslapd-ldapilisten": "off"} {
		if err := d.set("cn=config", attr, value); err != nil {
			return err
		}
	}
	return d.write()
}

// relocate rewrites the paths of the instance in dir, wherever it was made
// or copied from (its dse.ldif says), to root (dse.ldif and the
// certificate databases' module lists name them).
func relocate(dir, root string) error {
	d, err := readDSE(dir)
	if err != nil {
		return err
	}
	from, err := d.root()
	if err != nil {
		return err
	}
	d.replaceAll(from, root)
	if err := d.write(); err != nil {
		return err
	}
	for _, stale := range []string{"dse.ldif.bak", "dse.ldif.startOK", "dse.ldif.tmp"} {
		_ = os.Remove(filepath.Join(configDir(dir), stale))
	}
	lists, _ := filepath.Glob(filepath.Join(dir, "etc", "dirsrv", "*", "pkcs11.txt"))
	for _, path := range lists {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(b), from, root)), 0o600); err != nil {
			return fmt.Errorf("relocating %s: %w", path, err)
		}
	}
	return nil
}

// root returns the directory the instance's paths are under, from its
// schema directory, root/etc/dirsrv/slapd-<instance>/schema.
func (d *dse) root() (string, error) {
	suffix := "/" + filepath.Join("etc", "dirsrv", "slapd-"+instance, "schema")
	for _, line := range d.lines {
		if dir, ok := strings.CutPrefix(line, "nsslapd-schemadir: "); ok && strings.HasSuffix(dir, suffix) {
			return strings.TrimSuffix(dir, suffix), nil
		}
	}
	return "", fmt.Errorf("%s names no schema directory ending in %s", d.path, suffix)
}
