package daemon

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/orgsync/orgsync/internal/daemon/statuspage"
	"github.com/orgsync/orgsync/internal/store"
)

// heldExample is the CSV example (with its state directory) over its
// removal limit (maxRemovals 1), with extra appended: its first sync
// holds removals for approval. It returns the configuration's path.
func heldExample(t *testing.T, extra string) string {
	t.Helper()
	path := example(t, extra)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "maxRemovals: 50%") {
		t.Fatalf("%s has no maxRemovals: 50%%", path)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), "maxRemovals: 50%", "maxRemovals: 1", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// opsPassword is ops's password on the status page of opsPage.
const opsPassword = "pa55-word-of-the-page"

// opsPage is the status section of basic authentication as ops with
// opsPassword.
func opsPage(t *testing.T) string {
	t.Helper()
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte(opsPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return "status:\n  username: ops\n  password: {file: " + pw + "}\n"
}

// serveReq serves one request to the daemon's endpoints as ops (basic
// authentication) when auth is set, with the form values (pairs).
func serveReq(d *daemon, method, path string, auth bool, form ...string) (int, string) {
	v := url.Values{}
	for i := 0; i+1 < len(form); i += 2 {
		v.Set(form[i], form[i+1])
	}
	req := httptest.NewRequest(method, path, strings.NewReader(v.Encode()))
	req.Host = "127.0.0.1:9090"
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if auth {
		req.SetBasicAuth("ops", opsPassword)
	}
	rec := httptest.NewRecorder()
	d.mux().ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// csrfOf is the token of the form of body that posts to action.
func csrfOf(t *testing.T, body, action string) string {
	t.Helper()
	m := regexp.MustCompile(`action="` + regexp.QuoteMeta(action) + `"><input type="hidden" name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no form posts to %s:\n%s", action, body)
	}
	return m[1]
}

// TestPageDecisionsAreRunsOfTheDaemon: a run that holds removals counts
// as held in the metrics and turns the banner amber; a reject while a
// run goes on is refused (serialized as approve is); approving with the
// source unreadable fails and the result page says why and that the
// approval is still pending; the review then shows what approving sends,
// and applying it approves it; every decision is logged with who, what
// and the outcome.
func TestPageDecisionsAreRunsOfTheDaemon(t *testing.T) {
	t.Parallel()
	path := heldExample(t, opsPage(t))
	core, logs := observer.New(zap.InfoLevel)
	d := newTestDaemon(t, setupOf(t, path, zap.New(core)))
	d.runOnce(context.Background())
	pending := d.control.PendingApprovals()
	if len(pending) != 1 {
		t.Fatalf("%d approvals pending after the run, want 1", len(pending))
	}
	id, org := pending[0].ID, pending[0].Org
	wantMetrics(t, d, `orgsync_runs_total{result="held"} 1`, `orgsync_org_runs_total{org="`+org+`",result="held"} 1`,
		`orgsync_oldest_pending_approval_timestamp_seconds{org="`+org+`"}`, "orgsync_run_started_timestamp_seconds 0", "orgsync_schedule_period_seconds ")
	if rec := scrape(d); strings.Contains(rec, `orgsync_runs_total{result="success"}`) {
		t.Error("the held run counts as a success too")
	}
	_, page := serveReq(d, http.MethodGet, "/", true)
	if !strings.Contains(page, `class="banner banner-held" id="held-`+org+`"`) {
		t.Fatalf("the banner is not amber:\n%s", page)
	}

	d.running.Lock() // a run in progress
	code, body := serveReq(d, http.MethodPost, "/approvals/"+id+"/reject", true, "csrf", csrfOf(t, page, "approvals/"+id+"/reject"))
	d.running.Unlock()
	if code != http.StatusConflict || !strings.Contains(body, "a run is in progress") || approval(t, d, id).Status != store.Pending {
		t.Errorf("a reject during a run: %d, approval %s\n%s", code, approval(t, d, id).Status, body)
	}

	users := filepath.Join(filepath.Dir(path), "users.csv")
	if err := os.Rename(users, users+".away"); err != nil {
		t.Fatal(err)
	}
	review := csrfOf(t, page, "approvals/"+id+"/review")
	code, body = serveReq(d, http.MethodPost, "/approvals/"+id+"/review", true, "csrf", review)
	if code != http.StatusConflict || !strings.Contains(body, `<pre id="error">`) || !strings.Contains(body, "users.csv") ||
		!strings.Contains(body, "still pending") {
		t.Errorf("approving with the source unreadable: %d\n%s", code, body)
	}
	if err := os.Rename(users+".away", users); err != nil {
		t.Fatal(err)
	}
	code, body = serveReq(d, http.MethodPost, "/approvals/"+id+"/review", true, "csrf", review)
	m := regexp.MustCompile(`name="reviewed" value="([0-9a-f]+)"`).FindStringSubmatch(body)
	if code != 200 || m == nil || !strings.Contains(body, "approving applies") || approval(t, d, id).Status != store.Pending {
		t.Fatalf("the review: %d\n%s", code, body)
	}
	code, body = serveReq(d, http.MethodPost, "/approvals/"+id+"/approve", true, "csrf", csrfOf(t, body, "approve"), "reviewed", m[1])
	if code != 200 || !strings.Contains(body, "applied:") || approval(t, d, id).Status != store.Approved {
		t.Errorf("applying the review: %d, approval %s\n%s", code, approval(t, d, id).Status, body)
	}
	by := "ops via status page, basic authentication"
	for msg, action := range map[string]string{"status page: the decision failed": "reject", "status page: approval reviewed, nothing applied": "review",
		"status page: decision taken": "approve"} {
		entries := logs.FilterMessage(msg).All()
		if len(entries) == 0 || entries[0].ContextMap()["by"] != by || entries[0].ContextMap()["approval"] != id || entries[0].ContextMap()["action"] != action {
			t.Errorf("no log %q of %s by ops: %v", msg, action, entries)
		}
	}
}

// approval reads approval id of the daemon's state directory.
func approval(t *testing.T, d *daemon, id string) *store.Approval {
	t.Helper()
	a, err := d.control.StateDir().Approval(id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// scrape is the daemon's /metrics.
func scrape(d *daemon) string {
	rec := httptest.NewRecorder()
	d.metrics.handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	return rec.Body.String()
}

// TestHealthzSaysOnlyOkOrFailing: to anyone, /healthz says ok or failing
// and since when, never the error; with the page's credentials, the last
// run with its error and the next run.
func TestHealthzSaysOnlyOkOrFailing(t *testing.T) {
	t.Parallel()
	path := example(t, opsPage(t))
	d := newTestDaemon(t, setupOf(t, path, zap.NewNop()))
	users := filepath.Join(filepath.Dir(path), "users.csv")
	if err := os.Rename(users, users+".away"); err != nil {
		t.Fatal(err)
	}
	d.runOnce(context.Background())
	code, body := serveReq(d, http.MethodGet, "/healthz", false)
	var h map[string]any
	if err := json.Unmarshal([]byte(body), &h); err != nil || code != 200 || h["status"] != "failing" || h["since"] == nil || len(h) != 2 {
		t.Errorf("/healthz to anyone after a failed run: %d %s", code, body)
	}
	if strings.Contains(body, "users.csv") {
		t.Errorf("/healthz tells anyone the error: %s", body)
	}
	code, body = serveReq(d, http.MethodGet, "/healthz", true)
	var details HealthDetails
	if err := json.Unmarshal([]byte(body), &details); err != nil || code != 200 || details.LastRun == nil || !strings.Contains(details.LastRun.Error, "users.csv") ||
		details.NextRun.IsZero() || details.Status != "failing" {
		t.Errorf("/healthz with the credentials: %d %s", code, body)
	}
	if err := os.Rename(users+".away", users); err != nil {
		t.Fatal(err)
	}
	d.runOnce(context.Background())
	_, body = serveReq(d, http.MethodGet, "/healthz", false)
	if !strings.HasPrefix(body, `{"status":"ok","since":`) {
		t.Errorf("/healthz after the run succeeded again: %s", body)
	}
}

// TestPageSecretIsReadAtStartAndReload: a status.token from a command is
// read when the daemon starts and when it reads its configuration again,
// never at a request, however many come, with or without the token.
func TestPageSecretIsReadAtStartAndReload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	count := filepath.Join(dir, "runs")
	extra := "status:\n  token: {exec: [/bin/sh, -c, 'echo run >> " + count + "; echo " + testToken + "']}\n"
	d := newTestDaemon(t, setupOf(t, example(t, extra), zap.NewNop()))
	runs := func() int {
		b, _ := os.ReadFile(count)
		return strings.Count(string(b), "run")
	}
	if n := runs(); n != 1 {
		t.Fatalf("the secret command ran %d times at start, want 1", n)
	}
	for i := range 200 {
		req := httptest.NewRequest(http.MethodGet, "/api/runs", nil)
		if i%2 == 0 {
			req.Header.Set("Authorization", "Bearer "+testToken)
		}
		rec := httptest.NewRecorder()
		d.mux().ServeHTTP(rec, req)
		if want := []int{200, 401}[i%2]; rec.Code != want {
			t.Fatalf("request %d: %d, want %d", i, rec.Code, want)
		}
	}
	if n := runs(); n != 1 {
		t.Errorf("200 requests ran the secret command %d more times, want none", n-1)
	}
	d.reload()
	if n := runs(); n != 2 {
		t.Errorf("reading the configuration again ran the secret command %d times in all, want 2", n)
	}
}

// TestARejectOnThePageIsShownAndCountedAtOnce: a reject taken on the page
// is on the page (its run record, the banner: not in sync until the next
// run), in the pending gauge and in the decisions' counter as soon as it
// is taken, not after the next run.
func TestARejectOnThePageIsShownAndCountedAtOnce(t *testing.T) {
	t.Parallel()
	d := newTestDaemon(t, setupOf(t, heldExample(t, opsPage(t)), zap.NewNop()))
	d.runOnce(context.Background())
	pending := d.control.PendingApprovals()
	if len(pending) != 1 {
		t.Fatalf("%d approvals pending after the run, want 1", len(pending))
	}
	id, org := pending[0].ID, pending[0].Org
	_, page := serveReq(d, http.MethodGet, "/", true)
	if code, body := serveReq(d, http.MethodPost, "/approvals/"+id+"/reject", true, "csrf", csrfOf(t, page, "approvals/"+id+"/reject")); code != 200 {
		t.Fatalf("the reject: %d\n%s", code, body)
	}
	runs := d.status().Runs
	if last := runs[len(runs)-1]; last.Mode != "reject" || last.Approval != id || last.Result != store.RunSuccess {
		t.Errorf("the page's last run after the reject: %+v", last)
	}
	wantMetrics(t, d, `orgsync_pending_approvals{org="`+org+`"} 0`, `orgsync_page_decisions_total{action="reject",result="success"} 1`)
	if b := statuspage.Banner(runs, nil); len(b) != 1 || b[0].State != statuspage.StateRejected {
		t.Errorf("the banner after the reject, before the next run: %+v", b)
	}
}
