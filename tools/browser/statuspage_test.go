package browser

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/orgsync/orgsync/internal/util/testenv"
)

// requireChromium returns the path of Debian's chromium (testenv: the
// test fails in CI without it, and is skipped elsewhere).
func requireChromium(t *testing.T) string {
	t.Helper()
	return testenv.Program(t, "chromium", "chromium", "chromium-browser")
}

// pagePassword is a status.password long enough for the page.
const pagePassword = "pa55-word-of-the-status-page"

// basicOps is the Authorization header of ops with pagePassword.
var basicOps = "Basic " + base64.StdEncoding.EncodeToString([]byte("ops:"+pagePassword))

// pageStatus is the status section that protects the page with basic
// authentication as ops (pagePassword) or, with token, with pageToken,
// read from a file of the test's: no environment variable, so that the
// tests that use it run in parallel.
func pageStatus(t *testing.T, token bool) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "page-secret")
	value, section := pagePassword, "status:\n  username: ops\n  password: {file: %q}\n"
	if token {
		value, section = pageToken, "status:\n  token: {file: %q}\n"
	}
	if err := os.WriteFile(path, []byte(value+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(section, path)
}

// browse starts headless Chromium with JavaScript off, sending the
// Authorization header auth with every request (none when empty); must
// fails the test on an error of a step.
func browse(t *testing.T, chromium, auth string) (context.Context, func(what string, err error)) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox,
		chromedp.WindowSize(1100, 1400), chromedp.Flag("disable-gpu", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancel)
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
	if auth != "" {
		_, err = chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{
			Headers: network.Headers{"Authorization": auth}})
		must("the credentials", err)
	}
	return ctx, must
}

// getAuth GETs url with the Authorization header auth (none when empty).
func getAuth(url, auth string) (int, string) {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
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
	t.Parallel()
	chromium := requireChromium(t)
	base := startHeldDaemon(t, pageStatus(t, true)).base

	var st *apiRuns
	waitFor(t, "a held run in /api/runs", 20*time.Second, func() bool {
		st = apiRunsOf(base, "Bearer "+pageToken)
		return st != nil && len(st.Runs) == 1 && len(st.Pending) == 1
	})
	if st.Runs[0].Result != "held" || st.Runs[0].Total() == 0 {
		t.Errorf("run %+v, want held with changes applied", st.Runs[0])
	}
	if code, _ := getAuth(base+"/", ""); code != http.StatusUnauthorized {
		t.Errorf("the page without the token: %d, want 401", code)
	}
	id := st.Pending[0].ID

	ctx, must := browse(t, chromium, "Bearer "+pageToken)
	must("opening the page", chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("runs"))))
	html, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html")))
	must("reading the page", err)
	bars, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSSAll("svg#chart rect.bar")))
	must("the chart", err)
	approvalRows, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSSAll("#approval-"+id+" td")))
	must("the approval", err)
	held, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#runs td.held-count")))
	must("the held count", err)
	if held != "2" {
		t.Errorf("the runs table shows %q changes held, want 2", held)
	}
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

// TestApproveOnTheStatusPageInChromium: a daemon whose status page needs
// basic authentication holds removals at start; in headless Chromium
// (JavaScript off) the approver clicks Approve on the page: the held
// changes are applied, the approval records ops as who approved it from
// the page, the run is recorded as an approve that succeeded, and the
// page lists the approval as decided.
func TestApproveOnTheStatusPageInChromium(t *testing.T) {
	t.Parallel()
	chromium := requireChromium(t)
	d := startHeldDaemon(t, pageStatus(t, false))
	base := d.base
	basic := basicOps
	var st *apiRuns
	waitFor(t, "a held run in /api/runs", 20*time.Second, func() bool {
		st = apiRunsOf(base, basic)
		return st != nil && len(st.Pending) == 1
	})
	id := st.Pending[0].ID

	ctx, must := browse(t, chromium, basic)
	must("opening the page", chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("approve-"+id))))
	must("clicking Approve", chromedp.Do(ctx, chromedp.Click(chromedp.ID("approve-"+id)), chromedp.WaitVisible(chromedp.ID("apply-"+id))))
	must("confirming", chromedp.Do(ctx, chromedp.Click(chromedp.ID("apply-"+id)), chromedp.WaitVisible(chromedp.ID("result-title"))))
	outcome, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("outcome")))
	must("reading the outcome", err)
	if !strings.Contains(outcome, "mallory@example.com") || !strings.Contains(outcome, "applied:") {
		t.Errorf("the outcome page says:\n%s", outcome)
	}
	if g := groupsOf(d.sim, "mallory@example.com"); inGroup(g, "Marketing") {
		t.Errorf("the approved removal was not applied: mallory has %v", g)
	}
	a := d.approval(t, id)
	if a.Status != "approved" || a.Decided.String() != "ops via status page, basic authentication" {
		t.Errorf("approval after the click: %s, decided %v", a.Status, a.Decided)
	}
	runs := d.runs(t)
	if last := runs[len(runs)-1]; last.Mode != "approve" || last.Result != "success" || last.Approval != id {
		t.Errorf("the approve's run record: %+v", last)
	}
	must("the page again", chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("resolved"))))
	resolved, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("resolved")))
	must("the decided approvals", err)
	if !strings.Contains(resolved, id) || !strings.Contains(resolved, "approved") || !strings.Contains(resolved, "ops") {
		t.Errorf("the page does not list the approval as decided:\n%s", resolved)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	must("the screenshot", err)
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), "statuspage-approved.png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := d.stop(t); code != exitOK {
		t.Errorf("daemon exit %d\n%s", code, d.log())
	}
}

// heldDaemon is a daemon of the CSV example over its removal limit,
// serving its status page with status (a status: section) on loopback.
type heldDaemon struct {
	*heldSetup
	*daemon
}

// startHeldDaemon starts it, with a run at start that holds removals.
func startHeldDaemon(t *testing.T, status string) *heldDaemon {
	t.Helper()
	h := newHeldSetup(t, status)
	return &heldDaemon{heldSetup: h, daemon: startDaemon(t, h.cfg)}
}
