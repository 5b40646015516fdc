package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/orgsync/orgsync/internal/statuspage"
	"github.com/orgsync/orgsync/target/umsim"
)

// requireChromium returns the path of Debian's chromium, skipping the test
// when it is missing, or failing it in CI (CI=true), where make test
// installs it (scripts/test-deps.sh).
func requireChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed: scripts/test-deps.sh installs it")
	}
	t.Skip("chromium is not installed (scripts/test-deps.sh installs it)")
	return ""
}

// getAuth GETs url with a bearer token.
func getAuth(url, token string) (int, string) {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// TestStatusPageInChromium: a daemon on loopback syncs at start over the
// removal limit (changes applied, removals held for approval); headless
// Chromium, with JavaScript off, opens its status page with the bearer
// token and finds the run, the approval with its changes and the chart;
// the screenshot is kept as a test artifact.
func TestStatusPageInChromium(t *testing.T) {
	chromium := requireChromium(t)
	dir := exampleDir(t)
	s := startSim(t, dir, umsim.Options{})
	addr := freeAddr(t)
	cfg := heldConfig(t, dir, s.url, "")
	appendFile(t, cfg, fmt.Sprintf("status:\n  token: {env: STATUS_TOKEN}\nschedule:\n  cron: \"@every 1h\"\n  allowFrequentSchedule: true\n  listen: %q\n", addr))
	t.Setenv("STATUS_TOKEN", "page-t0ken")
	startBinary(t, "daemon", "--config", cfg, "--run-at-start", "--log-format", "json")
	base := "http://" + addr

	var st statuspage.Status
	waitFor(t, "a held run in /api/runs", 20*time.Second, func() bool {
		code, body := getAuth(base+"/api/runs", "page-t0ken")
		return code == 200 && json.Unmarshal([]byte(body), &st) == nil && len(st.Runs) == 1 && len(st.Pending) == 1
	})
	if st.Runs[0].Result != "held" || st.Runs[0].Total() == 0 {
		t.Errorf("run %+v, want held with changes applied", st.Runs[0])
	}
	if code, _ := get(base + "/"); code != http.StatusUnauthorized {
		t.Errorf("the page without the token: %d, want 401", code)
	}
	id := st.Pending[0].ID

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox,
		chromedp.WindowSize(1100, 1400), chromedp.Flag("disable-gpu", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("chromium: %s: %v", what, err)
		}
	}
	_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
	must("turning JavaScript off", err)
	_, err = chromedp.Call(ctx, network.Enable, network.EnableParams{})
	must("network", err)
	_, err = chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{
		Headers: network.Headers{"Authorization": "Bearer page-t0ken"}})
	must("the token", err)
	must("opening the page", chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("runs"))))
	html, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html")))
	must("reading the page", err)
	bars, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSSAll("svg#chart rect.bar")))
	must("the chart", err)
	approvalRows, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSSAll("#approval-"+id+" td")))
	must("the approval", err)
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	must("the screenshot", err)
	for _, want := range []string{"orgsync status", "orgsync approve " + id, "mallory@example.com", `class="held">held`, "Next run:"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page in Chromium lacks %q", want)
		}
	}
	if len(bars) != 1 || len(approvalRows) != len(st.Pending[0].Changes) {
		t.Errorf("%d chart bars and %d held changes shown; want 1 and %d", len(bars), len(approvalRows), len(st.Pending[0].Changes))
	}
	path := filepath.Join(t.ArtifactDir(), "statuspage.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	if len(shot) < 10_000 || !bytes.HasPrefix(shot, []byte("\x89PNG")) {
		t.Errorf("screenshot of %d bytes is not a page's PNG", len(shot))
	}
	t.Logf("screenshot: %s", path)
}
