package main

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orgsync/orgsync/target/umsim"
)

// wine is a Wine prefix of the test's own (WINEPREFIX in a temporary
// folder) with the test-only shim Wine 8 lacks for Go programs: a
// bcryptprimitives.dll exporting ProcessPrng (built with mingw into the
// prefix's system32; never part of a release).
type wine struct {
	prefix string
	t      *testing.T
}

// newWine makes the prefix (wineboot) and installs the shim.
func newWine(t *testing.T) *wine {
	for _, name := range []string{"wine", "wineboot", "x86_64-w64-mingw32-gcc"} {
		tool(t, name)
	}
	w := &wine{prefix: filepath.Join(t.TempDir(), "prefix"), t: t}
	step(t, "wineboot (a new prefix)", func() {
		w.cmd(2*time.Minute, "wineboot", "-i")
		w.cmd(time.Minute, "wineserver", "-w") // wait until wineboot's server has ended
	})
	src := filepath.Join(t.TempDir(), "shim.c")
	if err := os.WriteFile(src, []byte(shimC), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd(t, "x86_64-w64-mingw32-gcc", "-shared", "-O2", "-o", w.path(`C:\windows\system32\bcryptprimitives.dll`), src, "-ladvapi32")
	// A persistent wineserver: otherwise, when the last program the
	// test runs ends, Wine shuts its services down (the service would
	// stop a few seconds after net start returns).
	ws := exec.Command("wineserver", "-f", "-p") // in the foreground, ended by wineserver -k
	ws.Env = w.env()
	if err := ws.Start(); err != nil {
		t.Fatalf("wineserver -p: %v", err)
	}
	t.Cleanup(func() {
		w.cmd(time.Minute, "wineserver", "-k")
		_ = ws.Wait()
	})
	return w
}

// shimC is ProcessPrng over RtlGenRandom (advapi32's SystemFunction036).
const shimC = `#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID, ULONG);
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!SystemFunction036(data, n)) return FALSE;
		data += n; len -= n;
	}
	return TRUE;
}
`

// env is the environment of the prefix's programs.
func (w *wine) env() []string {
	return append(os.Environ(), "WINEPREFIX="+w.prefix, "WINEDEBUG=-all", "DISPLAY=")
}

// path is the Linux path of a Windows path of the prefix (C:\...).
func (w *wine) path(win string) string {
	rest := strings.ReplaceAll(strings.TrimPrefix(win, `C:\`), `\`, "/")
	return filepath.Join(w.prefix, "drive_c", rest)
}

// cmd runs a program of the prefix (wine, wineboot, wineserver...) and
// returns its output and exit code; it fails the test after timeout.
func (w *wine) cmd(timeout time.Duration, name string, args ...string) (string, int) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c := exec.CommandContext(ctx, name, args...)
	c.Env = w.env()
	c.WaitDelay = 5 * time.Second // the Wine processes a program starts (services.exe...) keep its output open
	out, err := c.CombinedOutput()
	if ctx.Err() != nil {
		w.t.Fatalf("%s %s: no end within %s\n%s", name, strings.Join(args, " "), timeout, out)
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return string(out), ee.ExitCode()
	case err != nil && !errors.Is(err, exec.ErrWaitDelay): // ErrWaitDelay: it exited 0
		w.t.Fatalf("%s: %v", name, err)
	}
	return string(out), 0
}

// must runs wine with args and fails the test unless it exits 0.
func (w *wine) must(args ...string) string {
	w.t.Helper()
	out, code := w.cmd(2*time.Minute, "wine", args...)
	if code != 0 {
		w.t.Fatalf("wine %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// write writes a file at a Windows path of the prefix.
func (w *wine) write(win, text string) {
	w.t.Helper()
	p := w.path(win)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// copy copies the Linux file src to a Windows path of the prefix.
func (w *wine) copy(src, win string) {
	w.t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		w.t.Fatal(err)
	}
	w.write(win, string(data))
}

// step runs fn and logs how long it took (docs/performance.md).
func step(t *testing.T, what string, fn func()) {
	t.Helper()
	start := time.Now()
	fn()
	t.Logf("wine step %q: %s", what, time.Since(start).Round(100*time.Millisecond))
}

// startSim serves the example organization on a free loopback port.
func startSim(t *testing.T) (*umsim.Server, string) {
	st, err := umsim.LoadState(filepath.Join("..", "..", "examples", "sim", "org.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := umsim.New(st, umsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return srv, hs.URL
}

// freePort returns a loopback port nothing listens on now.
func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// unzipExe writes the orgsync.exe of a release zip to the Linux path out.
func unzipExe(t *testing.T, zipPath, out string) {
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	r, err := zr.Open("orgsync.exe")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.Copy(f, r); err != nil {
		t.Fatal(err)
	}
}

// windowsConfig is a configuration of the CSV example in folder dir (a
// Windows path) synced into the simulator at url, its client secret in
// Credential Manager, with a daemon section when listen is set.
func windowsConfig(dir, url, listen string) string {
	cfg := fmt.Sprintf(`target:
  orgId: 1234ABCD@VendorOrg
  baseURL: %[2]s
  auth:
    method: jwt
    clientId: orgsync-demo
    clientSecret: {wincred: orgsync/umapi, user: orgsync-demo}
    technicalAccountId: demo-tech@techacct.example.com
    privateKey: {file: %[1]s\demo-private-key.pem}
sources:
  - csv:
      path: %[1]s\users.csv
      defaultType: federatedID
mapping:
  - directory: eng
    targets: [Engineering, Acrobat Pro]
  - directory: design
    targets: [Design]
  - directory: marketing
    targets: [Marketing, All Apps]
policy:
  exclude:
    groups: [_org_admin]
  unmatchedUsers: remove-groups
safety:
  maxRemovals: 50%%
state:
  dir: %[1]s\state
logging:
  file: %[1]s\logs\orgsync.log
`, dir, url)
	if listen != "" {
		cfg += fmt.Sprintf("schedule:\n  cron: \"@every 10s\"\n  allowFrequentSchedule: true\n  listen: %s\n", listen)
	}
	return strings.ReplaceAll(cfg, "\n", "\r\n") // as Notepad saves it
}

// exampleFiles copies the CSV example's users and the demo key into the
// Windows folder dir of the prefix.
func exampleFiles(t *testing.T, w *wine, dir string) {
	for win, src := range map[string]string{
		dir + `\users.csv`:            filepath.Join("..", "..", "examples", "csv", "users.csv"),
		dir + `\demo-private-key.pem`: filepath.Join("..", "..", "examples", "sim", "demo-private-key.pem"),
	} {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		w.write(win, strings.ReplaceAll(string(data), "\n", "\r\n"))
	}
	if err := os.MkdirAll(w.path(dir+`\logs`), 0o755); err != nil { // logging.file's folder (the MSI makes its own)
		t.Fatal(err)
	}
}

// storeSecret writes the simulator's demo client secret into the
// prefix's Credential Manager, as cmdkey would (UTF-16), with a helper
// built for Windows (testdata/wincredwrite).
func storeSecret(t *testing.T, w *wine) {
	exe := filepath.Join(t.TempDir(), "wincredwrite.exe")
	b := exec.Command("go", "build", "-o", exe, "./testdata/wincredwrite")
	b.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := b.CombinedOutput(); err != nil {
		t.Fatalf("building wincredwrite: %v\n%s", err, out)
	}
	secret, err := os.ReadFile(filepath.Join("..", "..", "examples", "sim", "demo-client-secret"))
	if err != nil {
		t.Fatal(err)
	}
	w.must(exe, "orgsync/umapi", "orgsync-demo", strings.TrimSpace(string(secret)))
}

// TestWindowsUnderWine: the release's orgsync.exe runs under Wine with a
// configuration of Windows paths (CRLF) and its client secret in
// Credential Manager: version, validate, plan and sync against the
// simulator on loopback, then a plan that finds nothing. The MSI installs
// (msiexec), its service runs one scheduled run seen on the status page,
// stops, upgrades in place and uninstalls, keeping the configuration and
// the state.
func TestWindowsUnderWine(t *testing.T) {
	t.Parallel()
	d := makeDist(t)
	w := newWine(t)
	sim, url := startSim(t)
	step(t, "Credential Manager: store the client secret", func() { storeSecret(t, w) })
	const cli = `C:\orgsync-cli`
	unzipExe(t, filepath.Join(d, "orgsync-v1.2.3-windows-amd64.zip"), w.path(cli+`\orgsync.exe`))
	exampleFiles(t, w, cli)
	w.write(cli+`\orgsync.yaml`, windowsConfig(cli, url, ""))
	exe, config := cli+`\orgsync.exe`, cli+`\orgsync.yaml`
	step(t, "orgsync.exe version", func() {
		if out := w.must(exe, "version"); !strings.Contains(out, "orgsync v1.2.3") {
			t.Errorf("version: %s", out)
		}
	})
	step(t, "orgsync.exe validate", func() { w.must(exe, "validate", "--config", config) })
	step(t, "orgsync.exe plan", func() {
		if out := w.must(exe, "plan", "--config", config); !strings.Contains(out, "+ create") {
			t.Errorf("plan shows no creation:\n%s", out)
		}
	})
	before := len(sim.Snapshot().Users)
	step(t, "orgsync.exe sync", func() { w.must(exe, "sync", "--config", config) })
	if after := len(sim.Snapshot().Users); after <= before {
		t.Errorf("the organization has %d users after the sync, %d before", after, before)
	}
	step(t, "orgsync.exe plan (in sync)", func() {
		if out, code := w.cmd(2*time.Minute, "wine", exe, "plan", "--config", config, "--detailed-exitcode"); code != 0 {
			t.Errorf("plan after the sync: exit %d\n%s", code, out)
		}
	})
	if _, err := os.Stat(w.path(cli + `\state`)); err != nil {
		t.Errorf("no state directory: %v", err)
	}
	testMSI(t, w, d, url)
}

// testMSI installs the MSI, configures and runs its service until a
// scheduled run shows on the status page, stops it, upgrades and
// uninstalls.
func testMSI(t *testing.T, w *wine, d, url string) {
	const data, msi = `C:\ProgramData\orgsync`, `C:\orgsync-v1.2.3-windows-amd64.msi`
	w.copy(filepath.Join(d, "orgsync-v1.2.3-windows-amd64.msi"), msi)
	step(t, "msiexec /i", func() { w.must("msiexec", "/i", msi, "/qn") })
	for _, win := range []string{`C:\Program Files\orgsync\orgsync.exe`, data + `\orgsync.yaml`, data + `\state`, data + `\logs`} {
		if _, err := os.Stat(w.path(win)); err != nil {
			t.Fatalf("the MSI did not install %s: %v", win, err)
		}
	}
	starter, _ := os.ReadFile(w.path(data + `\orgsync.yaml`))
	if !strings.Contains(string(starter), "dir: C:\\ProgramData\\orgsync\\state\r\n") {
		t.Errorf("the starter configuration does not keep its state in %s\\state:\n%s", data, starter)
	}
	if out := w.must("reg", "query", `HKLM\SYSTEM\CurrentControlSet\Services\orgsync`); !strings.Contains(out, `daemon --config "C:\ProgramData\orgsync\orgsync.yaml"`) {
		t.Errorf("the service is not registered to run the daemon:\n%s", out)
	}
	if out := w.must("reg", "query", `HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment`, "/v", "Path"); !strings.Contains(out, `C:\Program Files\orgsync`) {
		t.Errorf("orgsync is not on the system PATH:\n%s", out)
	}
	exampleFiles(t, w, data)
	listen := freePort(t)
	w.write(data+`\orgsync.yaml`, windowsConfig(data, url, listen))
	step(t, "net start orgsync, a scheduled run on the status page", func() {
		// Wine's services.exe also starts automatic services when it
		// starts: "already running" is a start too.
		if out, code := w.cmd(2*time.Minute, "wine", "net", "start", "orgsync"); code != 0 && !strings.Contains(out, "already running") {
			t.Fatalf("net start orgsync: exit %d\n%s", code, out)
		}
		waitRun(t, "http://"+listen+"/api/runs")
	})
	step(t, "net stop orgsync", func() { w.must("net", "stop", "orgsync") })
	edited, _ := os.ReadFile(w.path(data + `\orgsync.yaml`))
	made, err := makeMSI("v1.2.4", t.TempDir(), w.path(`C:\Program Files\orgsync\orgsync.exe`))
	if err != nil {
		t.Fatal(err)
	}
	const upgrade = `C:\orgsync-v1.2.4-windows-amd64.msi`
	w.copy(made, upgrade)
	step(t, "msiexec /i (upgrade to 1.2.4)", func() { w.must("msiexec", "/i", upgrade, "/qn") })
	if now, _ := os.ReadFile(w.path(data + `\orgsync.yaml`)); string(now) != string(edited) {
		t.Errorf("the upgrade changed the configuration:\n%s", now)
	}
	step(t, "msiexec /x (uninstall)", func() { w.must("msiexec", "/x", upgrade, "/qn") })
	if _, err := os.Stat(w.path(`C:\Program Files\orgsync\orgsync.exe`)); err == nil {
		t.Error("the uninstall left the binary")
	}
	if now, _ := os.ReadFile(w.path(data + `\orgsync.yaml`)); string(now) != string(edited) {
		t.Error("the uninstall did not keep the configuration")
	}
	if runs, err := os.ReadFile(w.path(data + `\state\runs.jsonl`)); err != nil || len(runs) == 0 {
		t.Errorf("the uninstall did not keep the state: %v", err)
	}
	if out, code := w.cmd(time.Minute, "wine", "reg", "query", `HKLM\SYSTEM\CurrentControlSet\Services\orgsync`); code == 0 {
		t.Errorf("the uninstall left the service:\n%s", out)
	}
}

// waitRun waits, at most two minutes, until the status page's /api/runs
// lists a run.
func waitRun(t *testing.T, api string) {
	deadline := time.Now().Add(2 * time.Minute)
	var last string
	for time.Now().Before(deadline) {
		if resp, err := http.Get(api); err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			last = string(body)
			var runs struct {
				Runs []struct{ Result string } `json:"runs"`
			}
			if json.Unmarshal(body, &runs) == nil && len(runs.Runs) > 0 {
				return
			}
		}
		time.Sleep(time.Second)
	}
	t.Fatalf("no run on the status page within two minutes: %s", last)
}
