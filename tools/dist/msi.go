package main

import (
	"bytes"
	_ "embed" // the MSI's WiX source
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"

	"github.com/orgsync/orgsync/internal/demo/starter"
)

// wxs is the WiX source of the MSI, a template of its version.
//
//go:embed msi/orgsync.wxs
var wxs string

// msiArch is the one architecture the MSI is made for: wixl makes x86 and
// x64 installers (an arm64 Windows runs the x64 one, or takes the zip).
const msiArch = "amd64"

// windowsLayout is where the MSI keeps the configuration, the state and
// the logs (%ProgramData% is C:\ProgramData on every Windows we know).
var windowsLayout = starter.WindowsLayout(`C:\ProgramData`)

// makeMSI builds orgsync-VERSION-windows-amd64.msi in dir from the
// Windows binary bin with wixl, and returns its path.
func makeMSI(version, dir, bin string) (string, error) {
	stage, err := os.MkdirTemp("", "orgsync-msi-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(stage)
	cfg, err := windowsStarter()
	if err != nil {
		return "", err
	}
	var src bytes.Buffer
	if err := template.Must(template.New("wxs").Parse(wxs)).Execute(&src, struct{ Version string }{msiVersion(version)}); err != nil {
		return "", err
	}
	exe, err := os.ReadFile(bin)
	if err == nil {
		err = errors.Join(os.WriteFile(filepath.Join(stage, "orgsync.exe"), exe, 0o755),
			os.WriteFile(filepath.Join(stage, "orgsync.yaml"), []byte(cfg), 0o644),
			os.WriteFile(filepath.Join(stage, "orgsync.wxs"), src.Bytes(), 0o644))
	}
	if err != nil {
		return "", err
	}
	out, err := filepath.Abs(filepath.Join(dir, fmt.Sprintf("orgsync-%s-windows-%s.msi", version, msiArch)))
	if err != nil {
		return "", err
	}
	cmd := exec.Command("wixl", "--arch", "x64", "-o", out, "orgsync.wxs")
	cmd.Dir = stage
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("wixl (make test-deps installs it): %v\n%s", err, b)
	}
	for _, q := range msiFixes(msiVersion(version)) {
		if b, err := exec.Command("msibuild", out, "-q", q).CombinedOutput(); err != nil {
			return "", fmt.Errorf("msibuild %s: %v\n%s", q, err, b)
		}
	}
	return out, nil
}

// msiFixes are the queries that set, with msitools' msibuild, what wixl
// 0.101 ignores in the WiX source of version: the configuration's
// component is permanent (an uninstall keeps it) and never overwritten
// (an upgrade keeps it as edited), the state and logs folders' are
// permanent; the upgrade removes the old product before it installs
// (early: the old one's uninstall would otherwise remove the service the
// new one registered) and replaces one of the same version too (a build
// between releases is 0.0.0; the row is replaced: Attributes is part of
// its key).
func msiFixes(version string) []string {
	return []string{
		"UPDATE `Component` SET `Attributes` = 144 WHERE `Component` = 'Configuration'", // Permanent (16) | NeverOverwrite (128)
		"UPDATE `Component` SET `Attributes` = 16 WHERE `Component` = 'State' OR `Component` = 'Logs'",
		"UPDATE `InstallExecuteSequence` SET `Sequence` = 1401 WHERE `Action` = 'RemoveExistingProducts'", // after InstallValidate
		"DELETE FROM `Upgrade` WHERE `ActionProperty` = 'WIX_UPGRADE_DETECTED'",
		"INSERT INTO `Upgrade` (`UpgradeCode`, `VersionMax`, `Attributes`, `ActionProperty`) VALUES ('{" + strings.ToUpper(upgradeCode) +
			"}', '" + version + "', 513, 'WIX_UPGRADE_DETECTED')", // MigrateFeatures | VersionMaxInclusive
	}
}

// upgradeCode is the MSI's UpgradeCode (orgsync.wxs): the same for every
// release, so that each upgrades the one before.
const upgradeCode = "da39fc48-5e59-497e-b626-f8284b2f3325"

// msiVersion is a version Windows Installer compares (three numbers):
// v1.2.3 is 1.2.3; a build between releases is 0.0.0 (an upgrade of the
// same version is allowed, so it still replaces the one installed).
func msiVersion(v string) string {
	if m := regexp.MustCompile(`^v?(\d+)\.(\d+)\.(\d+)$`).FindStringSubmatch(v); m != nil {
		return m[1] + "." + m[2] + "." + m[3]
	}
	return "0.0.0"
}

// windowsStarter is the configuration the MSI installs: orgsync init's for
// an LDAP or Active Directory source in %ProgramData%\orgsync, which keeps
// its state and logs there, with Windows line endings.
func windowsStarter() (string, error) {
	path := windowsLayout.ConfigDir + `\orgsync.yaml`
	text, err := starter.ConfigIn("ldap", path, windowsLayout)
	if err != nil {
		return "", err
	}
	header := "# Installed by the orgsync MSI: never replaced by an upgrade, kept by an\n" +
		"# uninstall. Another kind of source: orgsync init --source KIND --output " + path + " --force\n" +
		"# Then: orgsync validate, orgsync service start (see docs/deployment.md, Windows).\n"
	return strings.ReplaceAll(header+text, "\n", "\r\n"), nil
}
