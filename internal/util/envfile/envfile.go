// Package envfile reads the environment files systemd's EnvironmentFile=
// reads (orgsync --env-file).
package envfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"runtime"
	"strings"
)

// envName is the shape of an environment variable's name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Load sets the variables of the environment file at path, which
// systemd's EnvironmentFile= reads for the units (/etc/orgsync/orgsync.env):
// KEY=VALUE lines, blank lines and lines starting with # or ; ignored, a
// value in single quotes taken as it is, in double quotes with \" and \\
// unescaped, a line ending in a backslash continued on the next. The
// file's values win over the environment's, as in the units.
func Load(path string, warn io.Writer) error {
	vars, err := Read(path)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(path); err == nil && runtime.GOOS != "windows" && fi.Mode().Perm()&0o004 != 0 {
		fmt.Fprintf(warn, "orgsync: warning: --env-file %s holds secrets and every user of this machine can read it (mode %04o): "+
			"sudo chmod 0640 %[1]s (readable by its group, the units' user's)\n", path, fi.Mode().Perm())
	}
	for _, v := range vars {
		if err := os.Setenv(v[0], v[1]); err != nil {
			return fmt.Errorf("--env-file %s: %s: %w", path, v[0], err)
		}
	}
	return nil
}

// Read returns the variables of the environment file at path, in
// order, as name and value pairs.
func Read(path string) ([][2]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrPermission) {
		return nil, fmt.Errorf("--env-file %s: %w: systemd reads it as root for the units; for a run by hand as the units' user, "+
			"make it readable by their group (orgsync in the packages): sudo chgrp orgsync %[1]s && sudo chmod 0640 %[1]s", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("--env-file: %w", err)
	}
	defer f.Close()
	var out [][2]string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line, n := "", 0
	for sc.Scan() {
		n++
		text := sc.Text()
		if strings.HasSuffix(text, `\`) {
			line += strings.TrimSuffix(text, `\`)
			continue
		}
		entry := strings.TrimSpace(line + text)
		line = ""
		if entry == "" || entry[0] == '#' || entry[0] == ';' {
			continue
		}
		name, value, ok := strings.Cut(entry, "=")
		if !ok {
			continue // as systemd: a line without = is ignored
		}
		if name = strings.TrimSpace(name); !envName.MatchString(name) {
			return nil, fmt.Errorf("--env-file %s:%d: %q is not a variable name (KEY=VALUE)", path, n, name)
		}
		out = append(out, [2]string{name, unquote(strings.TrimSpace(value))})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--env-file %s: %w", path, err)
	}
	return out, nil
}

// unquote takes the quotes off a value in single quotes (as it is) or
// double quotes (\" and \\ unescaped).
func unquote(v string) string {
	if len(v) < 2 || v[0] != v[len(v)-1] || (v[0] != '"' && v[0] != '\'') {
		return v
	}
	inner := v[1 : len(v)-1]
	if v[0] == '\'' {
		return inner
	}
	return strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(inner)
}
