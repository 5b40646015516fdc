package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The release files of make dist, made once for the package's tests
// (they take a minute).
var dist struct {
	once sync.Once
	dir  string
	err  error
	out  []byte
}

// makeDist runs make dist VERSION=v1.2.3 once (it needs make and wixl)
// and returns its folder, removed when the tests end (TestMain).
func makeDist(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"make", "wixl"} {
		tool(t, name)
	}
	dist.once.Do(func() {
		if dist.dir, dist.err = os.MkdirTemp("", "orgsync-dist-test-"); dist.err != nil {
			return
		}
		dist.out, dist.err = exec.Command("make", "-C", filepath.Join("..", ".."), "dist", "DIST="+dist.dir, "VERSION=v1.2.3").CombinedOutput()
	})
	if dist.err != nil {
		t.Fatalf("make dist: %v\n%s", dist.err, dist.out)
	}
	return dist.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if dist.dir != "" {
		os.RemoveAll(dist.dir)
	}
	os.Exit(code)
}

// TestReleaseFilesForEverySystem: make dist ships the macOS binaries in
// .tar.gz archives, orgsync.exe in .zip archives, both architectures, and
// the MSI, each with its checksum.
func TestReleaseFilesForEverySystem(t *testing.T) {
	t.Parallel()
	tool(t, "tar")
	tool(t, "unzip")
	tool(t, "msiinfo")
	d := makeDist(t)
	sums := cmd(t, "cat", filepath.Join(d, "SHA256SUMS"))
	for _, arch := range []string{"amd64", "arm64"} {
		for _, a := range []struct{ goos, file, holds string }{
			{"darwin", "orgsync-v1.2.3-darwin-" + arch + ".tar.gz", "-rwxr-xr-x 0/0"},
			{"windows", "orgsync-v1.2.3-windows-" + arch + ".zip", "orgsync.exe"},
		} {
			path := filepath.Join(d, a.file)
			var out string
			if a.goos == "darwin" {
				out = cmd(t, "tar", "-tvzf", path)
			} else {
				out = cmd(t, "unzip", "-l", path)
			}
			if !strings.Contains(out, a.holds) || !strings.Contains(sums, "  "+a.file+"\n") {
				t.Errorf("%s: %s\nSHA256SUMS:\n%s", a.file, out, sums)
			}
			if _, err := os.Stat(filepath.Join(d, otherName("v1.2.3", a.goos, arch))); err == nil {
				t.Errorf("%s: the bare binary is left beside its archive", a.file)
			}
		}
	}
	msi := filepath.Join(d, "orgsync-v1.2.3-windows-amd64.msi")
	if !strings.Contains(sums, "  orgsync-v1.2.3-windows-amd64.msi\n") {
		t.Errorf("no checksum of the MSI:\n%s", sums)
	}
	for table, want := range map[string]string{
		"Property":               "ProductVersion\t1.2.3",
		"ServiceInstall":         "orgsync\torgsync directory sync",
		"ServiceControl":         "orgsync",
		"CustomAction":           "service install",
		"Component":              "Configuration",
		"InstallExecuteSequence": "ConfigureService",
	} {
		if out := cmd(t, "msiinfo", "export", msi, table); !strings.Contains(out, want) {
			t.Errorf("the MSI's %s table has no %q:\n%s", table, want, out)
		}
	}
}
