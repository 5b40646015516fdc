// Package starter is the commented starter configurations `orgsync init`
// writes, one for each variant of the source kinds (the registry,
// source/all): the target's part and the policy's part (in parts/) around
// the variant's own sources and mapping part, with the variant and the
// file's name filled in.
package starter

import (
	_ "embed" // the parts
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/orgsync/orgsync/internal/util/suggest"
	"github.com/orgsync/orgsync/source"
	"github.com/orgsync/orgsync/source/all"
)

// The parts of every starter configuration around the variant's own:
// the target's, and the policy's with the rest of the file.
var (
	//go:embed parts/target.yaml
	targetPart string
	//go:embed parts/policy.yaml
	policyPart string
)

// Kinds lists the variants of source there is a starter for.
func Kinds() string { return kindsOf(all.Kinds()) }

// Names are the variants of source there is a starter for, sorted.
func Names() []string { return names(all.Kinds()) }

// Config returns the starter configuration for the variant named source,
// naming file in its instructions (orgsync.yaml for "-", standard output).
// A file in this system's installation folder (Installed) keeps its state
// and logs where the installation keeps them.
func Config(source, file string) (string, error) {
	var in *Layout
	if l := Installed(); l.Holds(file) {
		in = &l
	}
	return configOf(all.Kinds(), source, file, in)
}

// ConfigIn is Config for a file in the configuration folder of
// installation l (the MSI's starter, made on another system).
func ConfigIn(source, file string, l Layout) (string, error) {
	return configOf(all.Kinds(), source, file, &l)
}

// stdoutName is the file name a configuration written to standard output
// ("-") names in its comments.
const stdoutName = "orgsync.yaml"

// kindsOf lists the variants of kinds, sorted.
func kindsOf(kinds source.Kinds) string { return strings.Join(names(kinds), ", ") }

// names are the names of the variants of kinds, sorted.
func names(kinds source.Kinds) []string {
	var out []string
	for _, v := range kinds.Variants() {
		out = append(out, v.Name)
	}
	slices.Sort(out)
	return out
}

// configOf is Config for the variants of kinds, for a file in the
// configuration folder of installation in (nil: elsewhere).
func configOf(kinds source.Kinds, name, file string, in *Layout) (string, error) {
	v, ok := kinds.Variant(name)
	if !ok {
		return "", fmt.Errorf("--source %q: use one of %s%s", name, kindsOf(kinds), suggest.DidYouMean(name, names(kinds)))
	}
	if file == "-" {
		file = stdoutName
	}
	state, logFile := "state", "" // beside the file; standard error
	if in != nil {
		state, logFile = in.StateDir, in.LogFile
	}
	text := strings.NewReplacer("{{source}}", name, "{{file}}", file, "{{stateDir}}", state).Replace(targetPart + v.Starter + policyPart)
	if logFile != "" {
		text = strings.Replace(text, logFileExample, "  file: "+logFile+"   # also rotated", 1)
	}
	return text, nil
}

// logFileExample is the policy part's line that shows logging.file.
const logFileExample = "  # file: /var/log/orgsync/orgsync.log   # also rotated; default: standard error"

// PackagedConfigDir is where the Linux packages install the
// configuration, and PackagedStateDir the state directory they make,
// writable by the service's user (the configuration's folder is not).
const (
	PackagedConfigDir = "/etc/orgsync"
	PackagedStateDir  = "/var/lib/orgsync"
)

// Layout is where an installation keeps its configuration, its state
// and its logs.
type Layout struct {
	ConfigDir string
	StateDir  string
	LogFile   string // "": standard error (the systemd journal)
}

// LinuxPackages is the layout of the .deb and .rpm packages.
func LinuxPackages() Layout { return Layout{ConfigDir: PackagedConfigDir, StateDir: PackagedStateDir} }

// WindowsLayout is the layout of a Windows installation (the MSI, or
// the zip and orgsync service install): everything under
// %ProgramData%\orgsync, programData being that folder.
func WindowsLayout(programData string) Layout {
	dir := programData + `\orgsync`
	return Layout{ConfigDir: dir, StateDir: dir + `\state`, LogFile: dir + `\logs\orgsync.log`}
}

// Holds reports whether file is in the layout's configuration folder.
func (l Layout) Holds(file string) bool {
	abs, err := filepath.Abs(file)
	return err == nil && sameFolder(filepath.Dir(abs), l.ConfigDir)
}

// ConfigName is the configuration file's name when neither --config nor
// ORGSYNC_CONFIG names one.
const ConfigName = "orgsync.yaml"

// DefaultConfig is the configuration file when --config is not given:
// $ORGSYNC_CONFIG, else orgsync.yaml; on Windows, when the current folder
// has none, the installation's (%ProgramData%\orgsync).
func DefaultConfig() string {
	if path := os.Getenv("ORGSYNC_CONFIG"); path != "" {
		return path
	}
	installed := filepath.Join(Installed().ConfigDir, ConfigName)
	if runtime.GOOS == "windows" && !exists(ConfigName) && exists(installed) {
		return installed
	}
	return ConfigName
}

// exists reports whether there is a file at path.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// WriteNew writes data to path, readable by its owner only, refusing to
// replace an existing file unless force is set. Its lines end as this
// system's text files do (CRLF on Windows).
func WriteNew(path string, data []byte, force bool) error {
	if newline != "\n" {
		data = []byte(strings.ReplaceAll(string(data), "\n", newline))
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists: choose another --output, or add --force to overwrite it", path)
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
