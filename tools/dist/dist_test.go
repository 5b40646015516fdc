package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/orgsync/orgsync/internal/util/testenv"
)

// debianPackage names the Debian package of each program the tests run.
var debianPackage = map[string]string{"make": "make", "dpkg-deb": "dpkg", "lintian": "lintian", "rpm": "rpm",
	"systemd-analyze": "systemd", "sha256sum": "coreutils", "tar": "tar", "unzip": "unzip", "msiinfo": "msitools",
	"wixl": "wixl", "wine": "wine", "wineboot": "wine", "x86_64-w64-mingw32-gcc": "gcc-mingw-w64-x86-64"}

// tool requires the program name (testenv.Program: a failure under
// CI=true, a skip elsewhere, naming its Debian package).
func tool(t *testing.T, name string) {
	t.Helper()
	testenv.Program(t, debianPackage[name], name)
}

// cmd runs a command and returns its output; it fails the test when the
// command fails.
func cmd(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestPackages runs make dist and checks what the packages hold and
// declare with the distributions' own tools: dpkg-deb and lintian for the
// .deb, rpm for the .rpm; the checksums; the packaged configuration; the
// units (systemd-analyze verify); and the maintainer scripts' logic, run
// with stand-ins for the commands that would change the machine.
func TestPackages(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"dpkg-deb", "lintian", "rpm", "systemd-analyze", "sha256sum"} {
		tool(t, name)
	}
	dist := makeDist(t)
	sums := filepath.Join(dist, "SHA256SUMS")
	check := exec.Command("sha256sum", "--check", "--strict", sums)
	check.Dir = dist
	if out, err := check.CombinedOutput(); err != nil || strings.Count(string(out), ": OK") != 11 {
		t.Errorf("sha256sum --check: %v\n%s", err, out)
	}
	for _, arch := range []struct{ deb, rpm string }{{"amd64", "x86_64"}, {"arm64", "aarch64"}} {
		t.Run(arch.deb, func(t *testing.T) {
			deb := filepath.Join(dist, "orgsync_1.2.3-1_"+arch.deb+".deb")
			checkDeb(t, deb, arch.deb)
			checkRPM(t, filepath.Join(dist, "orgsync-1.2.3-1."+arch.rpm+".rpm"), arch.rpm, deb)
		})
	}
	root := t.TempDir()
	cmd(t, "dpkg-deb", "-x", filepath.Join(dist, "orgsync_1.2.3-1_amd64.deb"), root)
	checkInstalled(t, root)
	control := t.TempDir()
	cmd(t, "dpkg-deb", "-e", filepath.Join(dist, "orgsync_1.2.3-1_amd64.deb"), control)
	checkScripts(t, control)
}

// installed are the files and directories a package installs, with
// their mode and owner as dpkg-deb lists them.
var installed = []string{
	"drwxr-x--- root/orgsync ./etc/orgsync/",
	"-rw-r----- root/orgsync ./etc/orgsync/orgsync.yaml",
	"drwxr-x--- root/orgsync ./etc/orgsync/secrets/",
	"-rwxr-xr-x root/root ./usr/bin/orgsync",
	"-rw-r--r-- root/root ./usr/lib/systemd/system/orgsync.service",
	"-rw-r--r-- root/root ./usr/lib/systemd/system/orgsync-sync.service",
	"-rw-r--r-- root/root ./usr/lib/systemd/system/orgsync-sync.timer",
	"-rw-r--r-- root/root ./usr/lib/sysusers.d/orgsync.conf",
	"-rw-r--r-- root/root ./usr/share/bash-completion/completions/orgsync",
	"-rw-r--r-- root/root ./usr/share/zsh/vendor-completions/_orgsync",
	"-rw-r--r-- root/root ./usr/share/fish/vendor_completions.d/orgsync.fish",
	"-rw-r--r-- root/root ./usr/share/doc/orgsync/copyright",
	"-rw-r--r-- root/root ./usr/share/doc/orgsync/changelog.Debian.gz",
	"-rw-r--r-- root/root ./usr/share/lintian/overrides/orgsync",
	"drwxr-x--- orgsync/orgsync ./var/lib/orgsync/",
}

// checkDeb checks the .deb's control fields, its files and lintian's
// verdict.
func checkDeb(t *testing.T, deb, arch string) {
	info := cmd(t, "dpkg-deb", "--info", deb)
	for _, want := range []string{"Package: orgsync", "Version: 1.2.3-1", "Architecture: " + arch, "Section: admin",
		"Maintainer: orgsync maintainers", "Description: sync a company directory", " conffiles", " preinst", " postinst", " prerm", " postrm"} {
		if !strings.Contains(info, want) {
			t.Errorf("dpkg-deb --info lacks %q:\n%s", want, info)
		}
	}
	if conffiles := cmd(t, "dpkg-deb", "--field", deb, "Package"); strings.TrimSpace(conffiles) != "orgsync" {
		t.Errorf("Package field %q", conffiles)
	}
	control := t.TempDir()
	cmd(t, "dpkg-deb", "-e", deb, control)
	if data, err := os.ReadFile(filepath.Join(control, "conffiles")); err != nil || strings.TrimSpace(string(data)) != "/etc/orgsync/orgsync.yaml" {
		t.Errorf("conffiles = %q, %v; want the configuration only", data, err)
	}
	var listed []string
	for _, line := range strings.Split(cmd(t, "dpkg-deb", "--contents", deb), "\n") {
		if f := strings.Fields(line); len(f) == 6 {
			listed = append(listed, f[0]+" "+f[1]+" "+f[5])
		}
	}
	for _, want := range installed {
		if !slices.Contains(listed, want) {
			t.Errorf("dpkg-deb --contents lacks %q:\n%s", want, strings.Join(listed, "\n"))
		}
	}
	lint := exec.Command("lintian", "--tag-display-limit", "0", deb)
	out, _ := lint.CombinedOutput()
	for _, line := range strings.Split(string(out), "\n") {
		if regexp.MustCompile(`^[EW]: `).MatchString(line) {
			t.Errorf("lintian: %s", line)
		}
	}
}

// checkRPM checks the .rpm's header, its files, its configuration file
// and its scriptlets, which are the .deb's maintainer scripts.
func checkRPM(t *testing.T, rpm, arch, deb string) {
	info := cmd(t, "rpm", "-qip", rpm)
	for _, want := range []string{"Name        : orgsync", "Version     : 1.2.3", "Release     : 1", "Architecture: " + arch,
		"Summary     : sync a company directory into the User Management Service", "URL         : https://github.com/orgsync/orgsync"} {
		if !strings.Contains(info, want) {
			t.Errorf("rpm -qip lacks %q:\n%s", want, info)
		}
	}
	var listed []string
	for _, line := range strings.Split(cmd(t, "rpm", "-qlpv", rpm), "\n") {
		if f := strings.Fields(line); len(f) >= 9 {
			listed = append(listed, f[0]+" "+f[2]+"/"+f[3]+" ."+f[len(f)-1])
		}
	}
	for _, want := range installed {
		want = strings.TrimSuffix(want, "/")
		if strings.Contains(want, "changelog.Debian") || strings.Contains(want, "lintian") {
			continue // Debian's own
		}
		want = strings.Replace(want, "/zsh/vendor-completions/", "/zsh/site-functions/", 1) // Fedora's zsh reads site-functions
		if !slices.Contains(listed, want) {
			t.Errorf("rpm -qlpv lacks %q:\n%s", want, strings.Join(listed, "\n"))
		}
	}
	flags := cmd(t, "rpm", "-qp", "--queryformat", "[%{FILEFLAGS:fflags} %{FILENAMES}\n]", rpm)
	if !regexp.MustCompile(`(?m)^cn /etc/orgsync/orgsync.yaml$`).MatchString(flags) {
		t.Errorf("the configuration is not a %%config(noreplace) file:\n%s", flags)
	}
	scripts := cmd(t, "rpm", "-qp", "--scripts", rpm)
	control := t.TempDir()
	cmd(t, "dpkg-deb", "-e", deb, control)
	for _, s := range []struct{ rpm, deb string }{{"preinstall", "preinst"}, {"postinstall", "postinst"}, {"preuninstall", "prerm"}, {"postuninstall", "postrm"}} {
		body, err := os.ReadFile(filepath.Join(control, s.deb))
		if err != nil || !strings.Contains(scripts, s.rpm+" scriptlet (using /bin/sh):\n"+strings.TrimSpace(string(body))) {
			t.Errorf("the rpm's %s scriptlet is not the deb's %s (%v):\n%s", s.rpm, s.deb, err, scripts)
		}
	}
}

// checkInstalled checks the files of the package unpacked at root: the
// binary runs and has the version, the configuration is orgsync init's
// with the package's state directory and has nothing wrong but what is
// to fill in, and systemd-analyze verify accepts the units.
func checkInstalled(t *testing.T, root string) {
	bin := filepath.Join(root, "usr", "bin", "orgsync")
	if v := cmd(t, bin, "version"); !strings.HasPrefix(v, "orgsync v1.2.3 ") {
		t.Errorf("orgsync version = %q", v)
	}
	cfg := filepath.Join(root, "etc", "orgsync", "orgsync.yaml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		State struct{ Dir string }
	}
	if err := yaml.Unmarshal(data, &doc); err != nil || doc.State.Dir != "/var/lib/orgsync" || !bytes.Contains(data, []byte("# FILL IN")) {
		t.Errorf("the packaged configuration: state.dir %q (%v); want /var/lib/orgsync and the FILL IN comments", doc.State.Dir, err)
	}
	out, err := exec.Command(bin, "validate", "--config", cfg).CombinedOutput()
	problems := regexp.MustCompile(`(?m)^  \S+ \(line \d+\): .*$`).FindAllString(string(out), -1)
	if err == nil || len(problems) == 0 {
		t.Errorf("validate of the starter configuration: %v\n%s", err, out)
	}
	for _, p := range problems {
		if !strings.Contains(p, "placeholder orgsync init writes") && !strings.Contains(p, "is not set") && !strings.Contains(p, "cannot read the secret file") {
			t.Errorf("the starter configuration has a problem besides what is to fill in: %s", p)
		}
	}
	// systemd-analyze verify checks that ExecStart's program exists: the
	// units are verified with the unpacked binary's path in it.
	dir := t.TempDir()
	var paths []string
	for _, u := range units {
		data, err := os.ReadFile(filepath.Join(root, "usr", "lib", "systemd", "system", u))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(u, ".service") && !bytes.Contains(data, []byte("ExecStart="+binPath+" ")) {
			t.Errorf("%s does not run %s", u, binPath)
		}
		p := filepath.Join(dir, u)
		if err := os.WriteFile(p, bytes.ReplaceAll(data, []byte(binPath), []byte(bin)), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	verify := exec.Command("systemd-analyze", append([]string{"verify"}, paths...)...)
	verify.Dir = dir
	if out, err := verify.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
	if exposure, err := exec.Command("systemd-analyze", "security", "--offline=yes", "--threshold=20", paths[0]).CombinedOutput(); err != nil {
		t.Errorf("systemd-analyze security: the daemon's exposure is over 2.0 (%v):\n%s", err, exposure)
	}
}

// checkScripts runs the maintainer scripts in control with stand-ins on
// PATH for every command that would change the machine (getent answers
// as told; groupadd, useradd, systemctl and rm only record their
// arguments), and checks what they would have done.
func checkScripts(t *testing.T, control string) {
	stubs := t.TempDir()
	log := filepath.Join(stubs, "calls")
	for _, name := range []string{"groupadd", "useradd", "systemctl", "rm"} {
		script := "#!/bin/sh\necho \"" + name + " $*\" >> " + log + "\n"
		if err := os.WriteFile(filepath.Join(stubs, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run := func(script string, userExists bool, args ...string) (calls []string, stdout string) {
		t.Helper()
		exists := "2"
		if userExists {
			exists = "0"
		}
		if err := os.WriteFile(filepath.Join(stubs, "getent"), []byte("#!/bin/sh\nexit "+exists+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		_ = os.Remove(log)
		c := exec.Command("sh", append([]string{filepath.Join(control, script)}, args...)...)
		c.Env = append(os.Environ(), "PATH="+stubs+":"+os.Getenv("PATH"))
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", script, args, err, out)
		}
		data, _ := os.ReadFile(log)
		return strings.Split(strings.TrimSpace(string(data)), "\n"), string(out)
	}
	_, systemd := os.Stat("/run/systemd/system")
	withSystemd := func(calls ...string) []string {
		if systemd != nil {
			return []string{""} // no systemd running here: the scripts leave systemctl alone
		}
		return calls
	}
	tests := []struct {
		script     string
		args       []string
		userExists bool
		want       []string
	}{
		{"preinst", []string{"install"}, false, []string{"groupadd --system orgsync",
			"useradd --system --gid orgsync --home-dir /var/lib/orgsync --no-create-home --shell /usr/sbin/nologin --comment orgsync directory sync orgsync"}},
		{"preinst", []string{"upgrade", "1.2.2-1"}, true, []string{""}},
		{"prerm", []string{"remove"}, true, withSystemd("systemctl disable --now orgsync.service orgsync-sync.timer orgsync-sync.service")},
		{"prerm", []string{"0"}, true, withSystemd("systemctl disable --now orgsync.service orgsync-sync.timer orgsync-sync.service")},
		{"prerm", []string{"upgrade", "1.2.4-1"}, true, []string{""}},
		{"prerm", []string{"1"}, true, []string{""}},
		{"postrm", []string{"remove"}, true, withSystemd("systemctl daemon-reload")},
		{"postrm", []string{"purge"}, true, append(withSystemd("systemctl daemon-reload"), "rm -rf /var/lib/orgsync /var/log/orgsync")},
	}
	for _, tt := range tests {
		calls, _ := run(tt.script, tt.userExists, tt.args...)
		want := slices.DeleteFunc(slices.Clone(tt.want), func(s string) bool { return s == "" })
		calls = slices.DeleteFunc(calls, func(s string) bool { return s == "" })
		if !slices.Equal(calls, want) {
			t.Errorf("%s %v (user exists: %v) ran %q, want %q", tt.script, tt.args, tt.userExists, calls, want)
		}
	}
	if _, out := run("postinst", true, "configure"); !strings.Contains(out, "fill in /etc/orgsync/orgsync.yaml") {
		t.Errorf("postinst says nothing of the configuration to fill in:\n%s", out)
	}
}
