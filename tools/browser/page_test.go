package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/orgsync/orgsync/internal/daemon/statuspage"
)

// pageToken is a status.token long enough for the page.
const pageToken = "page-t0ken-0123456789abcdef-0123456789"

// apiRuns is the status page's /api/runs.
type apiRuns struct {
	statuspage.Status
	Banner []statuspage.BannerLine `json:"banner"`
}

// apiRunsOf reads /api/runs of the daemon at base, sending the
// Authorization header auth: nil unless it answers with its JSON.
func apiRunsOf(base, auth string) *apiRuns {
	code, body := getAuth(base+"/api/runs", auth)
	var a apiRuns
	if code != http.StatusOK || json.Unmarshal([]byte(body), &a) != nil {
		return nil
	}
	return &a
}

// shoot saves a full-page screenshot of the browser as name in the
// test's artifact directory.
func shoot(t *testing.T, ctx context.Context, must func(string, error), name string) {
	t.Helper()
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	must("the screenshot "+name, err)
	if len(shot) < 10_000 || !bytes.HasPrefix(shot, []byte("\x89PNG")) {
		t.Errorf("screenshot %s of %d bytes is not a page's PNG", name, len(shot))
	}
	path := filepath.Join(t.ArtifactDir(), name)
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// TestStatusPageCannotBeFramed: a page of another origin frames the
// status page (as the clickjacking of Approve did) beside a page that
// allows framing: Chromium renders the other one and refuses the status
// page, so there is nothing to click.
func TestStatusPageCannotBeFramed(t *testing.T) {
	t.Parallel()
	chromium := requireChromium(t)
	d := startHeldDaemon(t, pageStatus(t, false))
	basic := basicOps
	waitFor(t, "a held run", 20*time.Second, func() bool {
		a := apiRunsOf(d.base, basic)
		return a != nil && len(a.Pending) == 1
	})
	framable := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "<html><body><p id=control>a page that may be framed</p></body></html>")
	}))
	defer framable.Close()
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `<html><body><h1>Win a prize</h1><iframe id="victim" src="%s/" width="900" height="500" style="opacity:0.5"></iframe>
<iframe id="control" src="%s/" width="400" height="100"></iframe></body></html>`, d.base, framable.URL)
	}))
	defer attacker.Close()

	ctx, must := browse(t, chromium, basic)
	must("opening the framing page", chromedp.Do(ctx, chromedp.Navigate(attacker.URL), chromedp.WaitVisible(chromedp.ID("victim"))))
	time.Sleep(time.Second) // the frames load
	tree, err := chromedp.Call(ctx, page.GetFrameTree, cdp.Empty{})
	must("the frames", err)
	loaded, blocked := map[string]bool{}, map[string]bool{}
	for _, f := range tree.FrameTree.ChildFrames {
		t.Logf("frame %s (unreachable %q)", f.Frame.URL, f.Frame.UnreachableURL)
		if f.Frame.UnreachableURL != "" {
			blocked[f.Frame.UnreachableURL] = true
		} else {
			loaded[f.Frame.URL] = true
		}
	}
	if !loaded[framable.URL+"/"] {
		t.Fatalf("the control page was not loaded in its frame: the test cannot tell (%v)", loaded)
	}
	if loaded[d.base+"/"] || !blocked[d.base+"/"] {
		t.Errorf("the status page was not refused inside another site's frame (loaded %v, blocked %v): it can be clickjacked", loaded, blocked)
	}
	shoot(t, ctx, must, "statuspage-framed.png")
}

// TestBannerStatesAndLookupInChromium: a daemon holds removals at start
// (the banner turns amber with the approval, its commands and buttons),
// is approved on the page through the confirm step (green: in sync), and
// after a restart without its source, fails (red: failing); the per-user
// lookup shows what orgsync did to mallory and why. Each state is a
// screenshot.
func TestBannerStatesAndLookupInChromium(t *testing.T) {
	t.Parallel()
	chromium := requireChromium(t)
	h := newHeldSetup(t, pageStatus(t, false))
	d := startDaemon(t, h.cfg)
	base := d.base
	basic := basicOps
	state := func() string {
		a := apiRunsOf(base, basic)
		if a == nil || len(a.Banner) != 1 {
			return ""
		}
		return a.Banner[0].State
	}
	waitFor(t, "the held state", 20*time.Second, func() bool { return state() == statuspage.StateHeld })
	id := apiRunsOf(base, basic).Pending[0].ID

	ctx, must := browse(t, chromium, basic)
	must("the page", chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.ID("banner-review-"+id))))
	held, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".banner-held")))
	must("the amber banner", err)
	for _, want := range []string{"2 changes held for approval since", "orgsync approve " + id, "orgsync reject " + id, "Review and approve", "Reject"} {
		if !strings.Contains(held, want) {
			t.Errorf("the amber banner lacks %q:\n%s", want, held)
		}
	}
	shoot(t, ctx, must, "banner-held.png")
	must("review", chromedp.Do(ctx, chromedp.Click(chromedp.ID("banner-review-"+id)), chromedp.WaitVisible(chromedp.ID("apply-"+id))))
	review, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("outcome")))
	must("the review", err)
	if !strings.Contains(review, "approving applies 2 changes") || !strings.Contains(review, "mallory@example.com") || h.approval(t, id).Status != "pending" {
		t.Errorf("the review (nothing applied yet):\n%s", review)
	}
	shoot(t, ctx, must, "approve-confirm.png")
	must("apply", chromedp.Do(ctx, chromedp.Click(chromedp.ID("apply-"+id)), chromedp.WaitVisible(chromedp.ID("result-title"))))
	if a := h.approval(t, id); a.Status != "approved" || a.Decided.String() != "ops via status page, basic authentication" {
		t.Errorf("after the confirm step: %s by %v", a.Status, a.Decided)
	}
	waitFor(t, "the in-sync state", 20*time.Second, func() bool { return state() == statuspage.StateInSync })
	must("the page", chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(".banner-in-sync"))))
	resolved, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("resolved")))
	must("decided lately", err)
	if !strings.Contains(resolved, "approved and applied 2 changes") {
		t.Errorf("decided lately:\n%s", resolved)
	}
	shoot(t, ctx, must, "banner-in-sync.png")

	must("the lookup", chromedp.Do(ctx, chromedp.Navigate(base+"/history?user=mallory@example.com"), chromedp.WaitVisible(chromedp.ID("history"))))
	rows, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("history")))
	must("the lookup's rows", err)
	if !strings.Contains(rows, "remove") || !strings.Contains(rows, "approval "+id) || !strings.Contains(rows, "approved by ops") {
		t.Errorf("the lookup of mallory:\n%s", rows)
	}
	shoot(t, ctx, must, "user-lookup.png")

	if code := d.stop(t); code != exitOK {
		t.Errorf("daemon exit %d\n%s", code, d.log())
	}
	if !strings.Contains(d.log(), `"msg":"status page: decision taken"`) {
		t.Errorf("the decision is not in the daemon's log:\n%s", d.log())
	}
	users := filepath.Join(h.dir, "csv", "users.csv")
	if err := os.Rename(users, users+".away"); err != nil {
		t.Fatal(err)
	}
	d = startDaemon(t, h.cfg) // the same state directory, on a port of its own
	base = d.base
	waitFor(t, "the failing state", 20*time.Second, func() bool { return state() == statuspage.StateFailing })
	must("the page", chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(".banner-failing"))))
	failing, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".banner-failing")))
	must("the red banner", err)
	if !strings.Contains(failing, "failing since") || !strings.Contains(failing, "users.csv") {
		t.Errorf("the red banner:\n%s", failing)
	}
	shoot(t, ctx, must, "banner-failing.png")
	if code := d.stop(t); code != exitOK {
		t.Errorf("daemon exit %d\n%s", code, d.log())
	}
}

// TestTokenLoginInChromium: on a page protected by a token only, a
// browser without credentials gets the login form, logs in with the
// token and sees the page.
func TestTokenLoginInChromium(t *testing.T) {
	t.Parallel()
	chromium := requireChromium(t)
	d := startHeldDaemon(t, pageStatus(t, true))
	waitFor(t, "a held run", 20*time.Second, func() bool {
		a := apiRunsOf(d.base, "Bearer "+pageToken)
		return a != nil && len(a.Pending) == 1
	})
	ctx, must := browse(t, chromium, "")
	must("the page without credentials", chromedp.Do(ctx, chromedp.Navigate(d.base+"/"), chromedp.WaitVisible(chromedp.ID("token"))))
	shoot(t, ctx, must, "login.png")
	must("logging in", chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("token"), pageToken), chromedp.Click(chromedp.ID("login")),
		chromedp.WaitVisible(chromedp.ID("runs"))))
	who, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".whoami")))
	must("who", err)
	if !strings.Contains(who, "status.token holder via status page, token login") {
		t.Errorf("logged in as %q", who)
	}
}
