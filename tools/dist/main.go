// Command dist packages orgsync (make dist): for each architecture whose
// binaries make dist built (DIR/orgsync-VERSION-linux-ARCH, -darwin-ARCH,
// -windows-ARCH.exe), a .deb and an .rpm made with nfpm, a .tar.gz of the
// macOS binary and a .zip of orgsync.exe; an MSI of the Windows amd64
// binary made with msitools' wixl (msi.go); and SHA256SUMS over the Linux
// binaries and all of those. It is a program of its own, in the tools
// module, so that neither the orgsync binary nor orgsync's module
// requires nfpm. From the repository's root:
//
//	go -C tools run ./dist --version v1.2.0 --dir ../dist amd64 arm64
//
// A package installs /usr/bin/orgsync; the systemd units of
// examples/systemd (the daemon, orgsync.service, and a sync every two
// hours, orgsync-sync.timer) with their hardening, none enabled; the
// system user orgsync (preinstall, and a sysusers.d entry); /etc/orgsync/
// with a commented starter configuration (orgsync init's, with state.dir
// set), a configuration file the package manager never overwrites; and
// /var/lib/orgsync, the state directory, owned by orgsync.
package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/goreleaser/nfpm/v2"
	_ "github.com/goreleaser/nfpm/v2/deb" // registers the deb packager
	"github.com/goreleaser/nfpm/v2/files"
	_ "github.com/goreleaser/nfpm/v2/rpm" // registers the rpm packager

	"github.com/orgsync/orgsync/internal/demo/starter"
	"github.com/orgsync/orgsync/internal/util/completion"
)

// pkgFiles are the maintainer scripts and the files the packages hold
// besides the binary, the units and the configuration.
//
//go:embed pkg
var pkgFiles embed.FS

// Formats are the package formats made, by nfpm's name.
var formats = []string{"deb", "rpm"}

// Where the package puts things.
const (
	binPath    = "/usr/bin/orgsync"
	configDir  = starter.PackagedConfigDir
	configPath = configDir + "/orgsync.yaml"
	stateDir   = starter.PackagedStateDir
	unitDir    = "/usr/lib/systemd/system"
)

// The packages' maintainer, and the time of their files (fixed: the same
// sources make the same packages).
const maintainer = "orgsync maintainers <orgsync@users.noreply.github.com>"

var mtime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// units are the systemd units of examples/systemd the packages install.
var units = []string{"orgsync.service", "orgsync-sync.service", "orgsync-sync.timer"}

func main() {
	version := flag.String("version", "", "the version (git describe); a version that does not start with a digit is packaged as 0.0.0~git.<it>")
	dir := flag.String("dir", "dist", "the directory of the binaries, where the packages and SHA256SUMS are written")
	examples := flag.String("examples", filepath.Join("..", "examples"), "the examples directory (its systemd units)")
	flag.Parse()
	if *version == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: dist --version VERSION [--dir dist] ARCH...")
		os.Exit(2)
	}
	if err := run(*version, *dir, *examples, flag.Args()); err != nil {
		fmt.Fprintf(os.Stderr, "dist: %v\n", err)
		os.Exit(1)
	}
}

// run packages the binary of each architecture in dir and writes the
// checksums.
func run(version, dir, examples string, arches []string) error {
	stage, err := os.MkdirTemp("", "orgsync-dist-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	if err := writeStage(stage, examples); err != nil {
		return err
	}
	if err := writeChangelog(stage, packageVersion(version)); err != nil {
		return err
	}
	var made []string
	for _, arch := range arches {
		bin := filepath.Join(dir, binaryName(version, arch))
		if _, err := os.Stat(bin); err != nil {
			return fmt.Errorf("the %s binary: %w (make dist builds it)", arch, err)
		}
		made = append(made, bin)
		for _, format := range formats {
			out, err := pack(format, packageVersion(version), arch, bin, stage, dir)
			if err != nil {
				return fmt.Errorf("%s %s: %w", format, arch, err)
			}
			made = append(made, out)
		}
	}
	msi, err := makeMSI(version, dir, filepath.Join(dir, otherName(version, "windows", msiArch)))
	if err != nil {
		return err
	}
	made = append(made, msi)
	for _, arch := range arches {
		for _, o := range others {
			out, err := archive(version, dir, o.goos, o.exe, o.ext, arch)
			if err != nil {
				return err
			}
			made = append(made, out)
		}
	}
	return writeSums(filepath.Join(dir, "SHA256SUMS"), made)
}

// binaryName is the file make dist builds for arch.
func binaryName(version, arch string) string {
	return fmt.Sprintf("orgsync-%s-linux-%s", version, arch)
}

var leadingDigit = regexp.MustCompile(`^v?[0-9]`)

// packageVersion is a version both deb and rpm order correctly: v1.2.0
// is 1.2.0; a build between releases (a commit hash, -dirty) sorts below
// every release as 0.0.0~git.<hash>.
func packageVersion(v string) string {
	if leadingDigit.MatchString(v) {
		return strings.TrimPrefix(v, "v")
	}
	return "0.0.0~git." + regexp.MustCompile(`[^A-Za-z0-9.]+`).ReplaceAllString(v, ".")
}

// writeStage writes the files the packages take from disk: the
// maintainer scripts and documents, the units with the binary's path, and
// the starter configuration.
func writeStage(stage, examples string) error {
	err := fsCopy(pkgFiles, "pkg", stage)
	for _, u := range units {
		data, rerr := os.ReadFile(filepath.Join(examples, "systemd", u))
		if rerr != nil {
			return rerr
		}
		text := strings.ReplaceAll(string(data), "/usr/local/bin/orgsync", binPath)
		err = errors.Join(err, os.WriteFile(filepath.Join(stage, u), []byte(text), 0o644))
	}
	for shell, script := range completion.Scripts {
		err = errors.Join(err, os.WriteFile(filepath.Join(stage, "completion."+shell), []byte(script), 0o644))
	}
	cfg, cerr := starterConfig()
	if cerr != nil {
		return cerr
	}
	return errors.Join(err, os.WriteFile(filepath.Join(stage, "orgsync.yaml"), []byte(cfg), 0o640))
}

// starterConfig is the configuration the package installs: orgsync init's
// for an LDAP or Active Directory source, which keeps its state in the
// package's state directory (init does so for a file in configDir).
func starterConfig() (string, error) {
	text, err := starter.Config("ldap", configPath)
	if err != nil {
		return "", err
	}
	if !strings.Contains(text, "\nstate:\n  dir: "+stateDir+"\n") {
		return "", errors.New("the starter configuration does not keep its state in " + stateDir)
	}
	header := "# Installed by the orgsync package: never replaced by an upgrade. Another\n" +
		"# kind of source: orgsync init --source KIND --output " + configPath + " --force\n"
	return header + text, nil
}

// fsCopy writes the files under dir of fsys into out.
func fsCopy(fsys embed.FS, dir, out string) error {
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		data, err := fsys.ReadFile(dir + "/" + e.Name())
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(e.Name(), ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(out, e.Name()), data, mode); err != nil {
			return err
		}
	}
	return nil
}

// pack makes the package of one format and architecture in dir and
// returns its path.
func pack(format, version, arch, bin, stage, dir string) (string, error) {
	info := nfpm.WithDefaults(&nfpm.Info{
		Name:          "orgsync",
		Arch:          arch,
		Platform:      "linux",
		Version:       version,
		VersionSchema: "none",
		Release:       "1",
		Section:       "admin",
		Priority:      "optional",
		Maintainer:    maintainer,
		Description: "sync a company directory into the User Management Service\n" +
			"orgsync keeps the users and group memberships of an organization in the\n" +
			"User Management Service equal to what a directory says (LDAP, Active\n" +
			"Directory, Entra ID, Okta, Google Workspace, CSV, YAML), from a timer or\n" +
			"as a daemon with a status page and metrics.",
		Vendor:   "orgsync",
		Homepage: "https://github.com/orgsync/orgsync",
		License:  "proprietary",
		MTime:    mtime,
		Overridables: nfpm.Overridables{
			Contents: contents(bin, stage),
			Scripts: nfpm.Scripts{
				PreInstall:  filepath.Join(stage, "preinstall.sh"),
				PostInstall: filepath.Join(stage, "postinstall.sh"),
				PreRemove:   filepath.Join(stage, "preremove.sh"),
				PostRemove:  filepath.Join(stage, "postremove.sh"),
			},
			Deb: nfpm.Deb{Compression: "xz"},
			RPM: nfpm.RPM{Group: "System Environment/Daemons", Summary: "sync a company directory into the User Management Service"},
		},
	})
	if err := nfpm.PrepareForPackager(info, format); err != nil {
		return "", err
	}
	p, err := nfpm.Get(format)
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, p.ConventionalFileName(info))
	f, err := os.Create(out)
	if err != nil {
		return "", err
	}
	if err := p.Package(info, f); err != nil {
		f.Close()
		return "", err
	}
	return out, f.Close()
}

// contents are what a package installs.
func contents(bin, stage string) files.Contents {
	file := func(src, dst string, mode os.FileMode) *files.Content {
		return &files.Content{Source: src, Destination: dst, FileInfo: &files.ContentFileInfo{Mode: mode, Owner: "root", Group: "root"}}
	}
	c := files.Contents{
		file(bin, binPath, 0o755),
		file(filepath.Join(stage, "copyright"), "/usr/share/doc/orgsync/copyright", 0o644),
		file(filepath.Join(stage, "sysusers.conf"), "/usr/lib/sysusers.d/orgsync.conf", 0o644),
		{Destination: configDir, Type: files.TypeDir, FileInfo: &files.ContentFileInfo{Mode: 0o750, Owner: "root", Group: "orgsync"}},
		{Destination: configDir + "/secrets", Type: files.TypeDir, FileInfo: &files.ContentFileInfo{Mode: 0o750, Owner: "root", Group: "orgsync"}},
		{Source: filepath.Join(stage, "orgsync.yaml"), Destination: configPath, Type: files.TypeConfigNoReplace,
			FileInfo: &files.ContentFileInfo{Mode: 0o640, Owner: "root", Group: "orgsync"}},
		{Destination: stateDir, Type: files.TypeDir, FileInfo: &files.ContentFileInfo{Mode: 0o750, Owner: "orgsync", Group: "orgsync"}},
	}
	for _, u := range units {
		c = append(c, file(filepath.Join(stage, u), unitDir+"/"+u, 0o644))
	}
	for shell, dst := range completion.Files {
		f := file(filepath.Join(stage, "completion."+shell), dst, 0o644)
		if rpmDst, ok := completion.FilesRPM[shell]; ok {
			f.Packager = "deb"
			r := file(filepath.Join(stage, "completion."+shell), rpmDst, 0o644)
			r.Packager = "rpm"
			c = append(c, r)
		}
		c = append(c, f)
	}
	deb := func(src, dst string) *files.Content {
		f := file(src, dst, 0o644)
		f.Packager = "deb"
		return f
	}
	return append(c,
		deb(filepath.Join(stage, "changelog.Debian.gz"), "/usr/share/doc/orgsync/changelog.Debian.gz"),
		deb(filepath.Join(stage, "lintian-overrides"), "/usr/share/lintian/overrides/orgsync"))
}

// writeChangelog writes the Debian changelog of version, compressed as
// Debian policy asks (gzip -9n: no name, no time).
func writeChangelog(stage, version string) error {
	text := fmt.Sprintf("orgsync (%s-1) unstable; urgency=medium\n\n  * orgsync %[1]s, built by make dist; the project's history holds the changes.\n\n -- %s  %s\n",
		version, maintainer, mtime.Format(time.RFC1123Z))
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return err
	}
	zw.ModTime = time.Time{}
	if _, err := io.WriteString(zw, text); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(stage, "changelog.Debian.gz"), b.Bytes(), 0o644)
}

// writeSums writes the SHA-256 of each file, as sha256sum -c reads them.
func writeSums(path string, paths []string) error {
	sort.Strings(paths)
	var b strings.Builder
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), filepath.Base(p))
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
